import { describe, expect, it } from 'vitest';
import { iou, nonMaxSuppression } from '../../../src/model/nms.ts';

describe('non-maximum suppression', () => {
  const c = (labelIndex: number, score: number, box: [number, number, number, number]) => ({ labelIndex, score, box });

  it('computes intersection over union', () => {
    expect(iou([0, 0, 1, 1], [0, 0, 1, 1])).toBe(1);
    expect(iou([0, 0, 1, 1], [1, 1, 2, 2])).toBe(0);
    expect(iou([0, 0, 2, 1], [1, 0, 3, 1])).toBeCloseTo(1 / 3, 10);
  });

  it('keeps the best of overlapping boxes of one class, best first', () => {
    const kept = nonMaxSuppression([c(0, 0.6, [0, 0, 1, 1]), c(0, 0.9, [0.05, 0, 1, 1]), c(0, 0.7, [2, 2, 3, 3])], 0.5, 10);
    expect(kept.map((k) => k.score)).toEqual([0.9, 0.7]);
  });

  it("suppresses per class, as the model's own post-processor did", () => {
    const kept = nonMaxSuppression([c(0, 0.9, [0, 0, 1, 1]), c(1, 0.8, [0, 0, 1, 1])], 0.5, 10);
    expect(kept).toHaveLength(2);
  });

  it('caps the number of detections', () => {
    const many = Array.from({ length: 50 }, (_, i) => c(0, i / 100, [i * 2, 0, i * 2 + 1, 1]));
    expect(nonMaxSuppression(many, 0.5, 5)).toHaveLength(5);
  });
});
