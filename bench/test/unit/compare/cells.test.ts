import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../../client/args.ts';
import { CELLS, halfArgv, lengthArgv } from '../../../compare/cells.ts';

const [one, six] = CELLS as [(typeof CELLS)[number], (typeof CELLS)[number]];

describe('compare: the cells', () => {
  it("is the matrix's 1-client cell, 150 frames a half, and 6 clients for 15 s a half", () => {
    expect(lengthArgv(one, 1)).toEqual(['--frames', '150']);
    expect(lengthArgv(six, 1)).toEqual(['--duration', '15']);
  });

  it('scales frames and seconds, never below a measurable floor', () => {
    expect(lengthArgv(one, 0.05)).toEqual(['--frames', '8']);
    expect(lengthArgv(one, 0.001)).toEqual(['--frames', '3']);
    expect(lengthArgv(six, 0.05)).toEqual(['--duration', '0.8']);
    expect(lengthArgv(six, 0.01)).toEqual(['--duration', '0.5']);
    expect(lengthArgv(six, 2)).toEqual(['--duration', '30']);
  });

  it('builds argv the benchmark client parses: 640x480 JPEG, MessagePack over WebSocket, stop-and-wait', () => {
    const config = parseArgs(halfArgv(six, 'after', 'http://127.0.0.1:9', 1), undefined, { checkFiles: false });
    expect(config).toMatchObject({
      url: 'http://127.0.0.1:9',
      label: 'after, 6 clients',
      resize: { width: 640, height: 480 },
      transport: 'ws',
      codec: 'msgpack',
      mode: 'serial',
      clients: 6,
      warmup: 3,
      durationS: 15,
      frames: undefined,
      rateFps: undefined,
      quiet: true,
    });
    expect(parseArgs(halfArgv(one, 'before', 'http://127.0.0.1:9', 1), undefined, { checkFiles: false })).toMatchObject({
      clients: 1,
      frames: 150,
    });
  });
});
