import { describe, expect, it } from 'vitest';
import {
  formatBytes,
  logBounds,
  logTicks,
  niceStep,
  renderGroupedBars,
  renderLatencyChart,
  renderQualityChart,
} from '../../report-charts.ts';

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

describe('grouped bar chart', () => {
  it('draws a bar per figure in its series colour, skips missing ones, and whiskers where given', () => {
    const svg = renderGroupedBars(
      [
        {
          name: 'LTE',
          bars: [
            { series: 'ws', value: 10, high: 20 },
            { series: 'rest', value: undefined },
          ],
        },
        {
          name: 'satellite <GEO>',
          bars: [
            { series: 'ws', value: 1 },
            { series: 'rest', value: 0.5 },
          ],
        },
      ],
      { title: 'rates', unit: 'frames/s', series: ['ws', 'rest'] },
    );
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.trim().endsWith('</svg>')).toBe(true);
    // Two legend swatches, three bars (one figure missing).
    expect(svg.match(/<rect x="[\d.]+" y="[\d.]+" width="[\d.]+" height="7"/g)).toHaveLength(3);
    expect(svg).toContain('satellite &lt;GEO&gt;');
    // One whisker: a line and its cap.
    expect(svg.match(/stroke="#333"/g)).toHaveLength(2);
  });

  it('puts log ticks at 1, 2 and 5 of each decade', () => {
    expect(logTicks(1, 100)).toEqual([1, 2, 5, 10, 20, 50, 100]);
    expect(logTicks(10, 1000).slice(0, 3)).toEqual([10, 20, 50]);
    // The axis starts below the smallest bar, so that bar shows, and ends on a step above the largest.
    expect(logBounds(10, 900)).toEqual({ lo: 5, hi: 1000 });
    expect(logBounds(13, 640)).toEqual({ lo: 10, hi: 1000 });
    expect(logBounds(130, 1400)).toEqual({ lo: 100, hi: 2000 });
    const svg = renderGroupedBars(
      [
        {
          name: 'x',
          bars: [
            { series: 's', value: 15 },
            { series: 's', value: 900 },
          ],
        },
      ],
      {
        title: 'latency',
        unit: 'ms',
        series: ['s'],
        scale: 'log',
      },
    );
    expect(svg).toContain('(log scale)');
    expect(svg).toContain('>1000</text>');
    expect(svg).toContain('>10</text>');
  });
});

describe('formatBytes', () => {
  it('writes kB from a thousand bytes on', () => {
    expect(formatBytes(500)).toBe('500 B');
    expect(formatBytes(2000)).toBe('2 kB');
  });
});

describe('renderQualityChart', () => {
  const svg = renderQualityChart(
    [
      {
        name: 'JPEG, slideshow',
        colorIndex: 0,
        dashed: false,
        points: [
          { bytes: 30_000, agreement: 0.9, label: 'q50' },
          { bytes: 50_000, agreement: 0.97, label: 'q80' },
        ],
      },
      {
        name: 'VP8, bikes <real>',
        colorIndex: 1,
        dashed: true,
        points: [
          { bytes: 2000, agreement: 0.8, label: '250k' },
          { bytes: 6000, agreement: 0.95, label: '1000k' },
        ],
      },
      { name: 'H.264, empty', colorIndex: 2, dashed: false, points: [{ bytes: 3000, agreement: Number.NaN, label: '500k' }] },
    ],
    'Agreement for bytes',
  );

  it('draws a line per series with points, dashing the later clip, and escapes names', () => {
    expect(svg.match(/<path /g)).toHaveLength(2);
    expect(svg.match(/<circle /g)).toHaveLength(4);
    expect(svg).toContain('stroke-dasharray');
    expect(svg).toContain('VP8, bikes &lt;real&gt;');
    expect(svg).toContain('>q80<');
  });

  it('leaves out a series with no agreement to draw, legend included', () => {
    expect(svg).not.toContain('H.264, empty');
  });

  it('says so when there is nothing to draw', () => {
    expect(renderQualityChart([], 'nothing')).toContain('no measured encodings');
  });
});
