import { describe, expect, it } from 'vitest';
import { countBy, formatCounts, maxGap, p95Drift, shareRatio, windowFigures } from '../../../reliability/load-stats.ts';
import { measurement } from '../../support/measurements.ts';

describe('load figures', () => {
  // 1 frame per 100 ms for 3 s; latency grows by window: 10 ms, then 20, then 30.
  const frames = Array.from({ length: 30 }, (_, i) =>
    measurement({ startMs: i * 100, latencyMs: 10 * (1 + Math.floor(i / 10)), warmup: false, seq: i }),
  );

  it('groups measured frames by scheduled send time and counts what each got', () => {
    const extra = [
      measurement({ startMs: 50, outcome: 'dropped', errorCode: 'overloaded', latencyMs: 1 }),
      measurement({ startMs: 1500, outcome: 'timeout', latencyMs: Number.NaN }),
      measurement({ startMs: 2999, warmup: true, latencyMs: 999 }),
      // Scheduled at the very end: counted in the last window, not a window of its own.
      measurement({ startMs: 3000, latencyMs: 30 }),
    ];
    const w = windowFigures([...frames, ...extra], 1000, 3000);
    expect(w.map((x) => [x.fromS, x.toS, x.sent, x.detected, x.refused, x.unanswered])).toEqual([
      [0, 1, 11, 10, 1, 0],
      [1, 2, 11, 10, 0, 1],
      [2, 3, 11, 11, 0, 0],
    ]);
    expect(w.map((x) => x.p95)).toEqual([10, 20, 30]);
  });

  it('gives NaN percentiles for a window without a detected frame', () => {
    const w = windowFigures([measurement({ startMs: 10, latencyMs: 7 }), measurement({ startMs: 2500, latencyMs: 9 })], 1000, 3000);
    expect(w.map((x) => x.p50)).toEqual([7, Number.NaN, 9]);
  });

  it('gives the last window over the first, NaN when there is nothing to compare', () => {
    const w = windowFigures(frames, 1000, 3000);
    expect(p95Drift(w)).toBe(3);
    expect(p95Drift(windowFigures(frames, 5000, 3000))).toBeNaN();
    expect(windowFigures([], 1000, 2500)).toHaveLength(3);
    expect(p95Drift(windowFigures([], 1000, 2000))).toBeNaN();
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
