import { describe, expect, it } from 'vitest';
import { markers, replaceSection } from '../../doc-section.ts';

const { begin, end } = markers('matrix');

describe('generated doc sections', () => {
  it('starts a document with the markers when there is none', () => {
    const text = replaceSection(undefined, 'matrix', 'tables');
    expect(text).toContain(`${begin}\ntables\n${end}`);
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
