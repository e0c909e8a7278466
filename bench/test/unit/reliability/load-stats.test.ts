import { describe, expect, it } from 'vitest';
import { countBy, formatCounts, maxGap, shareRatio, windowPercentiles } from '../../../reliability/load-stats.ts';

describe('load figures', () => {
  it('takes a percentile per time window, NaN for an empty window', () => {
    const samples = [
      ...Array.from({ length: 100 }, (_, i) => ({ at: i * 10, value: i + 1 })), // 0..990 ms: values 1..100
      { at: 2500, value: 7 },
    ];
    const p = windowPercentiles(samples, 1000, 50, 3000);
    expect(p).toHaveLength(3);
    expect(p[0]).toBeCloseTo(50.5);
    expect(p[1]).toBeNaN();
    expect(p[2]).toBe(7);
  });

  it('rates how evenly clients were served', () => {
    expect(shareRatio([10, 10, 10])).toBe(1);
    expect(shareRatio([5, 20])).toBe(4);
    expect(shareRatio([0, 20])).toBe(Number.POSITIVE_INFINITY);
    expect(shareRatio([0, 0])).toBe(1);
    expect(shareRatio([])).toBeNaN();
  });

  it('finds the longest silence, including before the first and after the last answer', () => {
    expect(maxGap([10, 20, 60])).toBe(40);
    expect(maxGap([10, 20], 0, 100)).toBe(80);
    expect(maxGap([], 0, 100)).toBe(100);
  });

  it('counts and prints outcomes, most frequent first', () => {
    const counts = countBy(['a', 'b', 'b'], (x) => x);
    expect(counts).toEqual({ a: 1, b: 2 });
    expect(formatCounts(counts)).toBe('b 2, a 1');
    expect(formatCounts({})).toBe('none');
  });
});
