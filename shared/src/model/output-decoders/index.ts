/** Decoder kind named in a manifest -> the factory that builds its output decoder once per model. */
import type { DecoderKind, Manifest } from '../manifest.ts';
import { createBlazeFaceDecoder } from './blazeface.ts';
import { createSsdDecoder } from './ssd.ts';
import type { OutputDecoder } from './types.ts';
import { createYoloEnd2EndDecoder } from './yolo-end2end.ts';
import { createYoloV5Decoder } from './yolov5.ts';
import { createYoloV8Decoder } from './yolov8.ts';

interface DecoderKindSpec {
  create: (manifest: Manifest) => OutputDecoder;
  /**
   * Whether the model's candidates still overlap, one object scored by several anchors, so NMS must
   * follow. End-to-end heads emit one box per object: NMS there could only drop real neighbours.
   */
  nms: boolean;
}

const KINDS: Record<DecoderKind, DecoderKindSpec> = {
  ssd: { create: createSsdDecoder, nms: true },
  blazeface: { create: createBlazeFaceDecoder, nms: true },
  yolov8: { create: createYoloV8Decoder, nms: true },
  yolov5: { create: createYoloV5Decoder, nms: true },
  'yolo-end2end': { create: createYoloEnd2EndDecoder, nms: false },
};

export function createDecoder(manifest: Manifest): OutputDecoder {
  return KINDS[manifest.decoder].create(manifest);
}

/** Whether candidates of this decoder kind go through NMS (see DecoderKindSpec.nms). */
export function decoderRunsNms(kind: DecoderKind): boolean {
  return KINDS[kind].nms;
}

export type { Candidate, OutputDecoder, OutputTensor } from './types.ts';
