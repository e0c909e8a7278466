import { describe, expect, it } from 'vitest';
import { formatBytes, logTicks, renderQualityChart } from '../../../codecs/quality-chart.ts';

describe('logTicks', () => {
  it('gives 1, 2 and 5 times each power of ten within the range', () => {
    expect(logTicks(1000, 100_000)).toEqual([1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000]);
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
