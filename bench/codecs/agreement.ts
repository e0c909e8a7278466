/**
 * Detection agreement of an encoding with the uncompressed frames: the detections on each source frame are
 * the ground truth, the detections on the same frame after encoding are the predictions.
 *
 * mAP@0.5 here is PASCAL VOC's (2010 and later) all-point interpolated average precision, per class, averaged
 * over the classes that have at least one ground-truth box:
 * - per class, every prediction of all frames in descending score order; each is a true positive when its
 *   best-overlapping ground-truth box of that class in its frame has IoU >= 0.5 and was not taken by a
 *   higher-scored prediction (then it is a false positive: VOC does not fall back to the second best box);
 * - precision and recall after each prediction; precision made monotone from the right (the envelope), and
 *   AP the area under that envelope summed at every recall step (no 11-point sampling);
 * - boxes are continuous pixel coordinates (IoU without VOC's +1 pixel), and `>=` 0.5 as COCO counts it.
 * A class predicted but absent from the ground truth has no AP (as in VOC and COCO): its false positives
 * show in the label-set share instead, which counts frames whose sets of labels are identical.
 */

export type Box = readonly [x1: number, y1: number, x2: number, y2: number];

export interface ScoredBox {
  label: string;
  score: number;
  box: Box;
}

/** One frame: the source frame's detections (truth) and the encoded frame's (predicted; empty when it got none). */
export interface FramePair {
  truth: readonly ScoredBox[];
  predicted: readonly ScoredBox[];
}

export const IOU_THRESHOLD = 0.5;

export function iou(a: Box, b: Box): number {
  const width = Math.min(a[2], b[2]) - Math.max(a[0], b[0]);
  const height = Math.min(a[3], b[3]) - Math.max(a[1], b[1]);
  if (width <= 0 || height <= 0) return 0;
  const intersection = width * height;
  const area = (box: Box) => Math.max(0, box[2] - box[0]) * Math.max(0, box[3] - box[1]);
  const union = area(a) + area(b) - intersection;
  return union > 0 ? intersection / union : 0;
}

/**
 * Area under the precision envelope, summed where recall steps (VOC all-point interpolation).
 * `recall` and `precision` are the values after each prediction, in score order.
 */
export function allPointAp(recall: readonly number[], precision: readonly number[]): number {
  const r = [0, ...recall, 1];
  const p = [0, ...precision, 0];
  for (let i = p.length - 2; i >= 0; i--) p[i] = Math.max(p[i]!, p[i + 1]!);
  let ap = 0;
  for (let i = 1; i < r.length; i++) if (r[i] !== r[i - 1]) ap += (r[i]! - r[i - 1]!) * p[i]!;
  return ap;
}

export interface ClassAp {
  ap: number;
  truths: number;
  predictions: number;
  truePositives: number;
}

/** Average precision of one class over all frames. */
export function classAp(frames: readonly FramePair[], label: string, threshold = IOU_THRESHOLD): ClassAp {
  const truthsPerFrame = frames.map((frame) => frame.truth.filter((d) => d.label === label));
  const taken = truthsPerFrame.map((truths) => truths.map(() => false));
  const truths = truthsPerFrame.reduce((sum, list) => sum + list.length, 0);
  const predictions = frames
    .flatMap((frame, index) => frame.predicted.filter((d) => d.label === label).map((d) => ({ frame: index, detection: d })))
    // Array.prototype.sort is stable: equal scores keep frame order, so the result is repeatable.
    .sort((a, b) => b.detection.score - a.detection.score);
  const recall: number[] = [];
  const precision: number[] = [];
  let truePositives = 0;
  predictions.forEach(({ frame, detection }, i) => {
    let best = -1;
    let bestIou = 0;
    truthsPerFrame[frame]!.forEach((truth, j) => {
      const overlap = iou(detection.box, truth.box);
      if (overlap > bestIou) [best, bestIou] = [j, overlap];
    });
    if (best >= 0 && bestIou >= threshold && !taken[frame]![best]) {
      taken[frame]![best] = true;
      truePositives++;
    }
    recall.push(truths > 0 ? truePositives / truths : 0);
    precision.push(truePositives / (i + 1));
  });
  return { ap: truths > 0 ? allPointAp(recall, precision) : Number.NaN, truths, predictions: predictions.length, truePositives };
}

export interface Agreement {
  /** Mean of the per-class APs over the classes in the ground truth; NaN when it has no box at all. */
  map: number;
  perClass: Record<string, ClassAp>;
  /** Share of frames whose predicted labels are exactly the truth's (as sets: counts and boxes aside). */
  labelMatch: number;
  frames: number;
  truthBoxes: number;
}

export function labelsMatch(frame: FramePair): boolean {
  const truth = new Set(frame.truth.map((d) => d.label));
  const predicted = new Set(frame.predicted.map((d) => d.label));
  return truth.size === predicted.size && [...truth].every((label) => predicted.has(label));
}

export function agreement(frames: readonly FramePair[], threshold = IOU_THRESHOLD): Agreement {
  const labels = [...new Set(frames.flatMap((frame) => frame.truth.map((d) => d.label)))].sort();
  const perClass: Record<string, ClassAp> = {};
  for (const label of labels) perClass[label] = classAp(frames, label, threshold);
  const aps = labels.map((label) => perClass[label]!.ap);
  return {
    map: aps.length > 0 ? aps.reduce((a, b) => a + b, 0) / aps.length : Number.NaN,
    perClass,
    labelMatch: frames.length > 0 ? frames.filter(labelsMatch).length / frames.length : Number.NaN,
    frames: frames.length,
    truthBoxes: frames.reduce((sum, frame) => sum + frame.truth.length, 0),
  };
}
