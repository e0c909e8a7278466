import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../../../client/args.ts';
import { benchHalfArgv, cellTitle, halfSeconds, naiveCells } from '../../../../compare/naive/cells.ts';

describe('naive-client cells', () => {
  it('crosses both clients, 1 and 6 clients, idle and busy; idle only without busy loops', () => {
    expect(naiveCells(2).map((c) => c.key)).toEqual([
      'bench-1-idle',
      'bench-6-idle',
      'python-1-idle',
      'python-6-idle',
      'bench-1-hog',
      'bench-6-hog',
      'python-1-hog',
      'python-6-hog',
    ]);
    expect(naiveCells(0).every((c) => c.load === 'idle')).toBe(true);
    expect(naiveCells(0)).toHaveLength(4);
    expect(cellTitle(naiveCells(3)[7]!, 3)).toBe('6 x Python websockets, raw JPEG, 3 busy loops');
  });

  it('scales a half, never below half a second', () => {
    const [one, six] = naiveCells(0);
    expect(halfSeconds(one!, 1)).toBe(10);
    expect(halfSeconds(six!, 1)).toBe(15);
    expect(halfSeconds(six!, 0.05)).toBe(0.8);
    expect(halfSeconds(one!, 0.01)).toBe(0.5);
  });

  it("gives the benchmark client a naive stop-and-wait half: hints ignored, no pings, the matrix's frames", () => {
    const six = naiveCells(0)[1]!;
    const config = parseArgs(benchHalfArgv(six, 'gateway', 'http://127.0.0.1:9', 1, 2), undefined, { checkFiles: false });
    expect(config).toMatchObject({
      url: 'http://127.0.0.1:9',
      transport: 'ws',
      codec: 'msgpack',
      mode: 'serial',
      rateFps: undefined,
      clients: 6,
      durationS: 15,
      warmup: 3,
      honourRetryAfter: false,
      pingIntervalMs: 0,
      resize: { width: 640, height: 480 },
    });
    // A protocol-1 client never reads retryAfterMs and has no flag for it.
    expect(benchHalfArgv(six, 'before', 'http://127.0.0.1:9', 1, 1)).not.toContain('--ignore-retry-after');
  });
});
