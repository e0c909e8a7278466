/** Greedy per-class non-maximum suppression over decoder candidates. */
import type { Candidate } from './output-decoders/types.ts';

export function iou(a: Candidate['box'], b: Candidate['box']): number {
  const ix = Math.max(0, Math.min(a[2], b[2]) - Math.max(a[0], b[0]));
  const iy = Math.max(0, Math.min(a[3], b[3]) - Math.max(a[1], b[1]));
  const intersection = ix * iy;
  if (intersection === 0) return 0;
  const areaA = (a[2] - a[0]) * (a[3] - a[1]);
  const areaB = (b[2] - b[0]) * (b[3] - b[1]);
  return intersection / (areaA + areaB - intersection);
}

/**
 * Keeps the best-scoring box of each overlapping group of the same label, best first, at most
 * `maxDetections`. Per class, as the TF Object Detection API post-processor that was cut from the SSD
 * graph did: two labels on one box mean the model really scored both. Only the `preNmsTopK` best
 * candidates are considered so a very low threshold cannot make one frame quadratic in the anchors.
 */
export function nonMaxSuppression(
  candidates: readonly Candidate[],
  iouThreshold: number,
  maxDetections: number,
  preNmsTopK = 400,
): Candidate[] {
  const sorted = [...candidates].sort((a, b) => b.score - a.score).slice(0, preNmsTopK);
  const kept: Candidate[] = [];
  for (const candidate of sorted) {
    if (kept.length >= maxDetections) break;
    const suppressed = kept.some((k) => k.labelIndex === candidate.labelIndex && iou(k.box, candidate.box) > iouThreshold);
    if (!suppressed) kept.push(candidate);
  }
  return kept;
}
