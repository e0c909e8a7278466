import { describe, expect, it } from 'vitest';
import { niceStep, renderLatencyChart } from '../../../client/chart-svg.ts';

describe('bench latency chart', () => {
  it('is a well-formed SVG with one curve per series', () => {
    const svg = renderLatencyChart([
      { name: 'a', values: [1, 2, 3, 4, 5] },
      { name: 'b <&>', values: [2, 4, 6, 8, 100] },
    ]);
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.trim().endsWith('</svg>')).toBe(true);
    expect(svg.match(/<path /g)).toHaveLength(2);
    expect(svg).toContain('b &lt;&amp;&gt;');
    expect(niceStep(100)).toBe(20);
    expect(niceStep(7)).toBe(2);
  });
});
