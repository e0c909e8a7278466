/**
 * From a model's candidates to the detections a client is sent: unlabelled columns dropped, per-class
 * NMS (unless the decoder kind's model chose its boxes itself: end-to-end heads), boxes mapped back to the submitted image's pixels, class ids as the model's dataset numbers them.
 * The gateway and the browser's on-device inference run this same code.
 */
import type { Detection } from '../protocol.ts';
import { roundTo } from '../stats.ts';
import type { Placement } from './letterbox.ts';
import type { Manifest } from './manifest.ts';
import { mapBoxToImage } from './map-boxes.ts';
import { nonMaxSuppression } from './nms.ts';
import { decoderRunsNms } from './output-decoders/index.ts';
import type { Candidate } from './output-decoders/types.ts';

export interface LabelledModel {
  manifest: Pick<Manifest, 'input' | 'classIds' | 'iouThreshold' | 'maxDetections' | 'decoder'>;
  /** Index = label index the output decoder reports; "" marks an unused output column. */
  labels: readonly string[];
}

/** COCO's category ids skip numbers; the SSD's columns are those ids minus one. */
function classIdOf(model: LabelledModel, labelIndex: number): number {
  return model.manifest.classIds === 'coco' ? labelIndex + 1 : labelIndex;
}

export function candidatesToDetections(
  candidates: readonly Candidate[],
  model: LabelledModel,
  placement: Placement,
  image: { width: number; height: number },
): Detection[] {
  const { input, iouThreshold, maxDetections, decoder } = model.manifest;
  const labelled = candidates.filter((c) => model.labels[c.labelIndex]);
  const kept = decoderRunsNms(decoder) ? nonMaxSuppression(labelled, iouThreshold, maxDetections) : bestFirst(labelled, maxDetections);
  return kept.map((c) => ({
    label: model.labels[c.labelIndex]!,
    classId: classIdOf(model, c.labelIndex),
    score: roundTo(c.score, 3),
    box: mapBoxToImage(c.box, input, placement, image),
  }));
}

/** The `maxDetections` best candidates, best first: what NMS returns, without the suppression. */
function bestFirst(candidates: readonly Candidate[], maxDetections: number): Candidate[] {
  return [...candidates].sort((a, b) => b.score - a.score).slice(0, maxDetections);
}
