import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseLinkSpec } from '@sightline/shared/link';
import { loadTraces } from '../../../link/traces.ts';

const dir = mkdtempSync(join(tmpdir(), 'link-traces-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('trace files', () => {
  it('reads the files a profile names, relative to a folder, each direction its own', async () => {
    writeFileSync(join(dir, 'up.trace'), '5\n10\n');
    const traces = await loadTraces(parseLinkSpec('trace-up=up.trace,delay=5ms'), dir);
    expect(traces.up?.meanBps).toBe((2 * 1500 * 8 * 1000) / 10);
    expect(traces.down).toBeUndefined();
  });

  it('says which file is missing or malformed, in one line', async () => {
    await expect(loadTraces(parseLinkSpec('trace-down=nope.trace'), dir)).rejects.toThrow('trace nope.trace: no such file');
    writeFileSync(join(dir, 'bad.trace'), '5\nx\n');
    await expect(loadTraces(parseLinkSpec('trace-down=bad.trace'), dir)).rejects.toThrow(/bad.trace:2: 'x' is not a millisecond timestamp/);
  });
});
