import { clamp01, floatData, requireRole } from './output-access.ts';
import type { Candidate, OutputDecoder } from './types.ts';

/**
 * Decoder for TensorFlow Object Detection API SSD graphs cut before their NMS, e.g. SSDLite
 * MobileNetV2 COCO as converted in models/tools/convert_coco_ssd.py.
 *
 * Roles in `manifest.outputs`:
 * - `scores`: [1, anchors, classes] float32, already sigmoid; background column already removed, so
 *   column j is labelIndex j (for COCO: COCO id j + 1, see the manifest's `classIds`).
 * - `boxes`: [1, anchors, 1, 4] (or [1, anchors, 4]) float32, normalised ymin, xmin, ymax, xmax,
 *   already decoded against the anchors inside the graph.
 *
 * Every column is reported, including those whose label is "" (the 10 COCO ids the model never
 * predicts well); the pipeline drops candidates with an empty label.
 */
export function createSsdDecoder(manifest: { outputs: Record<string, string> }): OutputDecoder {
  const scoresName = requireRole('ssd', manifest.outputs, 'scores');
  const boxesName = requireRole('ssd', manifest.outputs, 'boxes');

  return (outputs, threshold) => {
    const scores = floatData('ssd', outputs, scoresName);
    const boxes = floatData('ssd', outputs, boxesName);
    const dims = outputs[scoresName]!.dims;
    const classes = dims[dims.length - 1] ?? 0;
    const anchors = classes > 0 ? scores.length / classes : 0;
    if (!Number.isInteger(anchors) || boxes.length !== anchors * 4) {
      throw new Error(
        `ssd decoder: ${scoresName} ${JSON.stringify(dims)} does not match ${boxesName} ${JSON.stringify(outputs[boxesName]!.dims)}`,
      );
    }

    const candidates: Candidate[] = [];
    // ~172k scores per frame and almost all are far below threshold: a flat scan with the box read
    // only on a hit keeps this well under a millisecond.
    for (let a = 0, row = 0; a < anchors; a++, row += classes) {
      for (let j = 0; j < classes; j++) {
        const score = scores[row + j]!;
        if (!(score > threshold)) continue;
        const b = a * 4;
        const y1 = clamp01(boxes[b]!);
        const x1 = clamp01(boxes[b + 1]!);
        const y2 = clamp01(boxes[b + 2]!);
        const x2 = clamp01(boxes[b + 3]!);
        // Anchors hanging entirely off the image collapse to zero area after clamping; NMS and the
        // client cannot use them.
        if (x2 <= x1 || y2 <= y1) continue;
        candidates.push({ labelIndex: j, score, box: [x1, y1, x2, y2] });
      }
    }
    return candidates;
  };
}
