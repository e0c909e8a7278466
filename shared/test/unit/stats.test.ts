import { describe, expect, it } from 'vitest';
import { mean, percentile, stddev, summarize } from '../../src/stats.ts';

describe('statistics on known data', () => {
  const oneToHundred = Array.from({ length: 100 }, (_, i) => i + 1);

  it('interpolates percentiles like numpy', () => {
    // numpy.percentile(range(1, 101), [50, 95, 99]) -> 50.5, 95.05, 99.01
    expect(percentile(oneToHundred, 50)).toBeCloseTo(50.5, 10);
    expect(percentile(oneToHundred, 95)).toBeCloseTo(95.05, 10);
    expect(percentile(oneToHundred, 99)).toBeCloseTo(99.01, 10);
    expect(percentile([1, 2, 3, 4], 25)).toBeCloseTo(1.75, 10);
  });

  it('handles the edges', () => {
    expect(percentile([], 50)).toBeNaN();
    expect(percentile([42], 99)).toBe(42);
    expect(percentile([1, 9], 0)).toBe(1);
    expect(percentile([1, 9], 100)).toBe(9);
  });

  it('computes mean and sample standard deviation', () => {
    expect(mean([2, 4, 4, 4, 5, 5, 7, 9])).toBe(5);
    // sample stddev of that set: sqrt(32 / 7)
    expect(stddev([2, 4, 4, 4, 5, 5, 7, 9])).toBeCloseTo(Math.sqrt(32 / 7), 12);
    expect(stddev([3])).toBe(0);
  });

  it('summarizes unsorted input without mutating it', () => {
    const values = [5, 1, 4, 2, 3];
    const summary = summarize(values);
    expect(values).toEqual([5, 1, 4, 2, 3]);
    expect(summary).toMatchObject({ count: 5, min: 1, max: 5, mean: 3, p50: 3 });
  });
});
