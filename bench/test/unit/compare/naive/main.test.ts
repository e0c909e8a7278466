import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { naiveCells } from '../../../../compare/naive/cells.ts';
import { naiveCommands, writeFrames } from '../../../../compare/naive/run.ts';

describe('naive-client comparison: frames and commands', () => {
  it('writes the frames in sending order, named so the Python client sends them in the same order', () => {
    const dir = mkdtempSync(join(tmpdir(), 'naive-frames-test-'));
    try {
      const frame = (name: string, byte: number, contentType = 'image/jpeg') => ({
        name,
        bytes: new Uint8Array([byte]),
        contentType,
        width: 1,
        height: 1,
      });
      writeFrames(dir, [frame('zebra.jpg', 1), frame('a b.png', 2, 'image/png'), frame('video#3', 3)]);
      const files = readdirSync(dir).sort();
      expect(files).toEqual(['000-zebra.jpg', '001-a_b.png', '002-video_3.jpg']);
      expect(files.map((f) => readFileSync(join(dir, f))[0])).toEqual([1, 2, 3]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('prints one half per cell and server, by variable, the busy cells wrapped in their loops', () => {
    const servers = [
      { name: 'gateway', variable: 'GATEWAY', url: 'http://127.0.0.1:40001', client: { protocol: 2, checkout: undefined } },
      { name: 'FastAPI + OpenCV', variable: 'OPENCV', url: 'http://127.0.0.1:40002', client: { protocol: 2, checkout: undefined } },
    ];
    const lines = naiveCommands(naiveCells(2), servers, { scale: 1, repeats: 2, hog: 2 });
    expect(lines).toHaveLength(16);
    expect(lines[0]).toBe(
      `pnpm bench --url "$GATEWAY" --label 'gateway, bench-1-idle' --resize 640x480 --transport ws --codec msgpack --warmup 3 --ignore-retry-after --ping-interval 0 --duration 10 --quiet   # x2, interleaved`,
    );
    expect(lines[7]).toBe(
      '.venvs/naive-client/bin/python bench/baselines/naive-client/naive_client.py --url "$OPENCV" --clients 6 --duration 15 --warmup 3 --timeout 30 --dir "$FRAMES" --samples   # x2, interleaved',
    );
    expect(lines[15]).toMatch(
      /^for i in \$\(seq 2\); do node -e 'for\(;;\)\{\}' & done; sleep 0\.5; \.venvs\/naive-client\/bin\/python .* --url "\$OPENCV" --clients 6 .*; kill \$\(jobs -p\) {3}# x2, interleaved$/,
    );
    expect(lines.join('\n')).not.toContain('40001');
  });
});
