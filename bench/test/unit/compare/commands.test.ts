import { describe, expect, it } from 'vitest';
import { halfCommands } from '../../../compare/cells.ts';
import { commandLine } from '../../../report.ts';

describe('compare: the printed commands', () => {
  it('names servers by their variables and quotes what the shell would split', () => {
    const names = new Map([['http://127.0.0.1:4321', 'AFTER']]);
    expect(commandLine('pnpm bench', ['--url', 'http://127.0.0.1:4321', '--label', "after, 1 client's", '--frames', '8'], names)).toBe(
      `pnpm bench --url "$AFTER" --label 'after, 1 client'\\''s' --frames 8`,
    );
  });

  it('gives one line per cell and server, cells first, marked when repeated', () => {
    const lines = halfCommands(
      [
        { name: 'before', variable: 'BEFORE', url: 'http://127.0.0.1:1', checkout: '/tmp/before' },
        { name: 'after', variable: 'AFTER', url: 'http://127.0.0.1:2' },
      ],
      { repeats: 3, scale: 1 },
    );
    expect(lines).toEqual([
      `(cd /tmp/before && pnpm bench --url "$BEFORE" --label 'before, 1 client' --resize 640x480 --transport ws --codec msgpack --warmup 3 --frames 150 --quiet)   # x3, interleaved`,
      `pnpm bench --url "$AFTER" --label 'after, 1 client' --resize 640x480 --transport ws --codec msgpack --warmup 3 --frames 150 --quiet   # x3, interleaved`,
      `(cd /tmp/before && pnpm bench --url "$BEFORE" --label 'before, 6 clients' --resize 640x480 --transport ws --codec msgpack --warmup 3 --clients 6 --duration 15 --quiet)   # x3, interleaved`,
      `pnpm bench --url "$AFTER" --label 'after, 6 clients' --resize 640x480 --transport ws --codec msgpack --warmup 3 --clients 6 --duration 15 --quiet   # x3, interleaved`,
    ]);
    expect(halfCommands([{ name: 'a', variable: 'A', url: 'http://127.0.0.1:1' }], { repeats: 1, scale: 1 })[0]).not.toContain('#');
  });
});
