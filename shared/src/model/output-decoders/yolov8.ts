import { clamp01, floatData, requireRole } from './output-access.ts';
import type { Candidate, OutputDecoder } from './types.ts';

/**
 * Decoder for Ultralytics YOLOv8 / YOLO11 detection exports (and any head with the same layout).
 *
 * Role in `manifest.outputs`:
 * - `output`: [1, 4+nc, N] float32 (`output0` in an Ultralytics export), channel-major: row 0..3 hold
 *   cx, cy, w, h of every anchor in input pixels, row 4+c the class-c score of every anchor (already
 *   sigmoid; no objectness). N is 8400 for a 640x640 input (80x80 + 40x40 + 20x20 cells).
 *
 * Each anchor becomes at most one candidate, its best class, as Ultralytics' predict does
 * (`non_max_suppression` with multi_label=False); class-aware NMS follows in candidatesToDetections.
 */
export function createYoloV8Decoder(manifest: {
  outputs: Record<string, string>;
  input: { width: number; height: number };
}): OutputDecoder {
  const outputName = requireRole('yolov8', manifest.outputs, 'output');
  const { width, height } = manifest.input;
  // Scratch reused between frames (a decoder belongs to one thread and runs to completion): the flat
  // indexes of the scores above the threshold, then per anchor its best score and class so far.
  let above = new Int32Array(1 << 14);
  let best = new Float32Array(0);
  let bestClass = new Int32Array(0);
  let hits = new Int32Array(0);

  return (outputs, threshold) => {
    const data = floatData('yolov8', outputs, outputName);
    const dims = outputs[outputName]!.dims;
    const rows = dims.length === 3 ? dims[1]! : 0;
    const anchors = dims.length === 3 ? dims[2]! : 0;
    if (dims[0] !== 1 || rows < 5 || data.length !== rows * anchors) {
      throw new Error(`yolov8 decoder: ${outputName} is ${JSON.stringify(dims)}, expected [1, 4+classes, anchors]`);
    }
    if (best.length !== anchors) {
      best = new Float32Array(anchors);
      // -1: no score of this anchor above the threshold yet in this frame.
      bestClass = new Int32Array(anchors).fill(-1);
      hits = new Int32Array(anchors);
    }

    // The hot loop: 80 x 8400 scores for a COCO model at 640, almost all below the threshold. One pass
    // over the class rows in memory order that only notes where a score is above the threshold: a body
    // this small is what V8 compiles to a tight loop (0.35-0.6 ms here for [1,84,8400], against about
    // twice that for a loop that also keeps each anchor's best in it). Hand-written: it is the whole cost
    // of decoding. A threshold so low that the notes overflow grows them and scans again.
    let count = -1;
    while (count < 0) {
      count = scanAbove(data, 4 * anchors, threshold, above);
      if (count < 0) above = new Int32Array(Math.min(above.length * 4, data.length));
    }

    // The few scores above the threshold -> each anchor's best class (the first of equal scores, as argmax).
    let hitCount = 0;
    for (let k = 0; k < count; k++) {
      const i = above[k]!;
      const row = Math.floor(i / anchors);
      const a = i - row * anchors;
      const score = data[i]!;
      if (bestClass[a]! < 0) hits[hitCount++] = a;
      else if (!(score > best[a]!)) continue;
      best[a] = score;
      bestClass[a] = row - 4;
    }

    const candidates: Candidate[] = [];
    // Anchor order, so equal scores reach NMS in the same order whatever the classes' order.
    const found = hits.subarray(0, hitCount).sort();
    for (let i = 0; i < hitCount; i++) {
      const a = found[i]!;
      const cx = data[a]!;
      const cy = data[anchors + a]!;
      const hw = data[2 * anchors + a]! / 2;
      const hh = data[3 * anchors + a]! / 2;
      const x1 = clamp01((cx - hw) / width);
      const y1 = clamp01((cy - hh) / height);
      const x2 = clamp01((cx + hw) / width);
      const y2 = clamp01((cy + hh) / height);
      const labelIndex = bestClass[a]!;
      const score = best[a]!;
      // Unseen again for the next frame, without clearing all N entries.
      bestClass[a] = -1;
      if (x2 <= x1 || y2 <= y1) continue;
      candidates.push({ labelIndex, score, box: [x1, y1, x2, y2] });
    }
    return candidates;
  };
}

/** Flat indexes (from `start`) of the values above `threshold` into `out`, how many; -1 when `out` is too small. */
function scanAbove(data: Float32Array, start: number, threshold: number, out: Int32Array): number {
  const end = data.length;
  const capacity = out.length;
  let count = 0;
  for (let i = start; i < end; i++) {
    if (!(data[i]! > threshold)) continue;
    if (count === capacity) return -1;
    out[count++] = i;
  }
  return count;
}
