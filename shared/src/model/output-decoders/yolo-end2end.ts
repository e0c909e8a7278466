import { clamp01, floatData, requireRole } from './output-access.ts';
import type { Candidate, OutputDecoder } from './types.ts';

/**
 * Decoder for Ultralytics end-to-end detection exports: YOLOv10, and YOLO26 by default.
 *
 * Role in `manifest.outputs`:
 * - `output`: [1, K, 6] float32 (K = max_det, 300 by default): x1, y1, x2, y2 in input pixels, score,
 *   class index; best first, rows past the last detection scored 0.
 *
 * The model has already chosen one box per object (one-to-one head), so this is a threshold and nothing
 * else: the decoder kind is marked as needing no NMS (decoderRunsNms in ./index.ts), which
 * candidatesToDetections honours.
 */
export function createYoloEnd2EndDecoder(manifest: {
  outputs: Record<string, string>;
  input: { width: number; height: number };
}): OutputDecoder {
  const outputName = requireRole('yolo-end2end', manifest.outputs, 'output');
  const { width, height } = manifest.input;

  return (outputs, threshold) => {
    const data = floatData('yolo-end2end', outputs, outputName);
    const dims = outputs[outputName]!.dims;
    const rows = dims.length === 3 ? dims[1]! : 0;
    if (dims[0] !== 1 || dims[2] !== 6 || data.length !== rows * 6) {
      throw new Error(`yolo-end2end decoder: ${outputName} is ${JSON.stringify(dims)}, expected [1, detections, 6]`);
    }

    const candidates: Candidate[] = [];
    for (let r = 0; r < rows * 6; r += 6) {
      const score = data[r + 4]!;
      if (!(score > threshold)) continue;
      const labelIndex = Math.round(data[r + 5]!);
      const x1 = clamp01(data[r]! / width);
      const y1 = clamp01(data[r + 1]! / height);
      const x2 = clamp01(data[r + 2]! / width);
      const y2 = clamp01(data[r + 3]! / height);
      if (labelIndex < 0 || x2 <= x1 || y2 <= y1) continue;
      candidates.push({ labelIndex, score, box: [x1, y1, x2, y2] });
    }
    return candidates;
  };
}
