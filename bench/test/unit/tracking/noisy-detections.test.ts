import { describe, expect, it } from 'vitest';
import type { MotRow } from '../../../tracking/mot-file.ts';
import { DEFAULT_NOISE, makeNoisyDetections } from '../../../tracking/noisy-detections.ts';

/** Four people standing still for 200 frames. */
const truth: MotRow[] = Array.from({ length: 200 }, (_, f) =>
  [0, 1, 2, 3].map((k) => ({ frame: f + 1, id: k + 1, box: [50 + k * 140, 100, 110 + k * 140, 260] as MotRow['box'], score: 1 })),
).flat();

describe('makeNoisyDetections', () => {
  it('makes the same detections from the same seed, and others from another', () => {
    const a = makeNoisyDetections(truth, { ...DEFAULT_NOISE, seed: 1 });
    expect(makeNoisyDetections(truth, { ...DEFAULT_NOISE, seed: 1 })).toEqual(a);
    expect(makeNoisyDetections(truth, { ...DEFAULT_NOISE, seed: 2 })).not.toEqual(a);
  });

  it('misses some objects, scores some low, adds false alarms, keeps boxes in the image', () => {
    const rows = makeNoisyDetections(truth, { ...DEFAULT_NOISE, seed: 3 });
    const near = (r: MotRow) =>
      truth.some((t) => t.frame === r.frame && Math.abs(t.box[0] - r.box[0]) < 20 && Math.abs(t.box[1] - r.box[1]) < 30);
    const real = rows.filter(near);
    const found = real.length / truth.length;
    expect(found).toBeGreaterThan(0.75);
    expect(found).toBeLessThan(0.95);
    const low = real.filter((r) => r.score < 0.5).length / real.length;
    expect(low).toBeGreaterThan(0.05);
    expect(low).toBeLessThan(0.3);
    const falseAlarms = rows.length - real.length;
    expect(falseAlarms / 200).toBeGreaterThan(0.6);
    expect(falseAlarms / 200).toBeLessThan(1.4);
    for (const r of rows) {
      expect(r.box[0]).toBeGreaterThanOrEqual(0);
      expect(r.box[2]).toBeLessThanOrEqual(DEFAULT_NOISE.imageWidth);
      expect(r.box[3]).toBeLessThanOrEqual(DEFAULT_NOISE.imageHeight);
      expect(r.score).toBeGreaterThanOrEqual(0.1);
      expect(r.score).toBeLessThan(0.95);
    }
  });

  it('makes exact detections when every noise is off', () => {
    const rows = makeNoisyDetections(truth.slice(0, 8), {
      ...DEFAULT_NOISE,
      seed: 1,
      missRate: 0,
      spellStartRate: 0,
      lowScoreRate: 0,
      centreJitter: 0,
      sizeJitter: 0,
      falsePositivesPerFrame: 0,
    });
    expect(rows.map((r) => r.box)).toEqual(truth.slice(0, 8).map((t) => t.box));
  });
});
