import { describe, expect, it } from 'vitest';
import { BEGIN, END, replaceBetweenMarkers } from '../../matrix.ts';

describe('matrix output', () => {
  it('creates the file with the markers when absent', () => {
    const text = replaceBetweenMarkers(undefined, 'tables');
    expect(text).toContain(`${BEGIN}\ntables\n${END}`);
  });

  it('replaces only what is between the markers', () => {
    const before = `# Benchmarks\n\nintro\n\n${BEGIN}\nold\n${END}\n\n## Other section\nkept\n`;
    const after = replaceBetweenMarkers(before, 'new');
    expect(after).toBe(`# Benchmarks\n\nintro\n\n${BEGIN}\nnew\n${END}\n\n## Other section\nkept\n`);
  });

  it('appends the markers to a file that has none', () => {
    const after = replaceBetweenMarkers('# Benchmarks\n\nhand-written\n', 'new');
    expect(after.startsWith('# Benchmarks\n\nhand-written\n')).toBe(true);
    expect(after).toContain(`${BEGIN}\nnew\n${END}`);
  });
});
