import { clamp01, floatData, requireRole } from './output-access.ts';
import type { Candidate, OutputDecoder } from './types.ts';

/**
 * Decoder for YOLOv5-layout detection exports (ultralytics/yolov5, and the heads that copied it).
 *
 * Role in `manifest.outputs`:
 * - `output`: [1, N, 5+nc] float32, anchor-major: cx, cy, w, h in input pixels, objectness, then the
 *   class scores (all already sigmoid). N is 25200 for a 640x640 input (3 anchors per cell).
 *
 * Score = objectness x the best class score, one candidate per anchor (YOLOv5's `non_max_suppression`
 * with multi_label=False). Class scores are at most 1, so an anchor whose objectness is not above the
 * threshold cannot score above it and its class scores are never read.
 */
export function createYoloV5Decoder(manifest: {
  outputs: Record<string, string>;
  input: { width: number; height: number };
}): OutputDecoder {
  const outputName = requireRole('yolov5', manifest.outputs, 'output');
  const { width, height } = manifest.input;

  return (outputs, threshold) => {
    const data = floatData('yolov5', outputs, outputName);
    const dims = outputs[outputName]!.dims;
    const anchors = dims.length === 3 ? dims[1]! : 0;
    const stride = dims.length === 3 ? dims[2]! : 0;
    if (dims[0] !== 1 || stride < 6 || data.length !== anchors * stride) {
      throw new Error(`yolov5 decoder: ${outputName} is ${JSON.stringify(dims)}, expected [1, anchors, 5+classes]`);
    }

    const candidates: Candidate[] = [];
    for (let a = 0, r = 0; a < anchors; a++, r += stride) {
      const objectness = data[r + 4]!;
      if (!(objectness > threshold)) continue;
      let labelIndex = 0;
      let classScore = data[r + 5]!;
      for (let c = 1, i = r + 6; i < r + stride; c++, i++) {
        if (data[i]! > classScore) {
          classScore = data[i]!;
          labelIndex = c;
        }
      }
      const score = objectness * classScore;
      if (!(score > threshold)) continue;
      const hw = data[r + 2]! / 2;
      const hh = data[r + 3]! / 2;
      const x1 = clamp01((data[r]! - hw) / width);
      const y1 = clamp01((data[r + 1]! - hh) / height);
      const x2 = clamp01((data[r]! + hw) / width);
      const y2 = clamp01((data[r + 1]! + hh) / height);
      if (x2 <= x1 || y2 <= y1) continue;
      candidates.push({ labelIndex, score, box: [x1, y1, x2, y2] });
    }
    return candidates;
  };
}
