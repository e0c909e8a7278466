import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { markers, replaceSection, RUNS_DIR, runsDoc, writeSection } from '../../doc-section.ts';

const { begin, end } = markers('matrix');

describe('generated doc sections', () => {
  it('starts a document with the markers when there is none', () => {
    const text = replaceSection(undefined, 'matrix', 'tables');
    expect(text).toContain(`${begin}\ntables\n${end}`);
    expect(replaceSection(undefined, 'matrix', 'tables', 'Full runs: matrix').startsWith('# Full runs: matrix\n\n')).toBe(true);
  });

  it('replaces only what is between the markers', () => {
    const before = `# Benchmarks\n\nintro\n\n${begin}\nold\n${end}\n\n## Other section\nkept\n`;
    const after = replaceSection(before, 'matrix', 'new');
    expect(after).toBe(`# Benchmarks\n\nintro\n\n${begin}\nnew\n${end}\n\n## Other section\nkept\n`);
  });

  it('appends the markers to a document that has none', () => {
    const after = replaceSection('# Benchmarks\n\nhand-written\n', 'matrix', 'new');
    expect(after.startsWith('# Benchmarks\n\nhand-written\n')).toBe(true);
    expect(after).toContain(`${begin}\nnew\n${end}`);
  });

  it("leaves another section's block alone", () => {
    const before = `${markers('stages').begin}\nstages\n${markers('stages').end}\n`;
    expect(replaceSection(before, 'matrix', 'm')).toContain(`${markers('stages').begin}\nstages\n${markers('stages').end}`);
  });
});

describe('full runs under docs/runs/', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it("one file per benchmark: a section's own name, or the file it shares with its command's other form", () => {
    expect(runsDoc('matrix')).toBe(join(RUNS_DIR, 'matrix.md'));
    expect(runsDoc('soak')).toBe(join(RUNS_DIR, 'soak.md'));
    expect(runsDoc('drain-stalled')).toBe(join(RUNS_DIR, 'drain.md'));
    expect(runsDoc('slow-reader-pings')).toBe(join(RUNS_DIR, 'slow-reader.md'));
    expect(runsDoc('slow-reader-frames')).toBe(join(RUNS_DIR, 'slow-reader.md'));
    expect(runsDoc('webrtc-long')).toBe(runsDoc('webrtc'));
  });

  it('writes a section into its file, keeping what is around it, and starts a missing file (and folder)', () => {
    dir = mkdtempSync(join(tmpdir(), 'doc-section-'));
    const file = join(dir, 'runs', 'drain.md');
    expect(writeSection('drain', 'first', file)).toBe(file);
    expect(readFileSync(file, 'utf8')).toBe(`# Full runs: drain\n\n${markers('drain').begin}\nfirst\n${markers('drain').end}\n`);
    writeFileSync(file, `# Drain\n\nhand-kept\n\n${markers('drain').begin}\nfirst\n${markers('drain').end}\n\nnotes\n`);
    writeSection('drain-stalled', 'stalled', file);
    writeSection('drain', 'second', file);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain(`hand-kept\n\n${markers('drain').begin}\nsecond\n${markers('drain').end}\n\nnotes\n`);
    expect(text.endsWith(`${markers('drain-stalled').begin}\nstalled\n${markers('drain-stalled').end}\n`)).toBe(true);
  });
});
