/**
 * One frame through the gateway's frame path, stage by stage, with nothing around it: header read and
 * decode plan, then libjpeg-turbo at the plan's DCT scale or sharp (libvips) as the plan says (and sharp
 * again for a JPEG libjpeg-turbo refuses, as the gateway does), the input tensor, the session, output
 * decoding, NMS and boxes. The libjpeg-turbo decoder and the session come from the caller (bare-pipeline-worker.ts).
 */
import type ort from 'onnxruntime-node';
import {
  decodeWithSharp,
  planDecode,
  readImageHeader,
  TurboJpegRefusal,
  type DecodedImage,
  type ModelSpec,
  type TurboJpegDecoder,
} from '@sightline/gateway';
import { buildInputTensor, candidatesToDetections, type FloatBuffers, type OutputDecoder } from '@sightline/shared/model';

export interface FramePathParts {
  spec: ModelSpec;
  maxPixels: number;
  /** undefined where libjpeg-turbo is not available: everything goes to sharp, as in the gateway. */
  jpeg: TurboJpegDecoder | undefined;
  session: ort.InferenceSession;
  makeTensor: (tensor: ReturnType<typeof buildInputTensor>) => ort.Tensor;
  decodeOutputs: OutputDecoder;
  buffers: FloatBuffers;
}

export interface FrameTimes {
  decoder: 'turbo' | 'sharp';
  /** Header, plan and decode. */
  decodeMs: number;
  tensorMs: number;
  inferenceMs: number;
  /** Output decoding, NMS and boxes mapped to the image. */
  boxesMs: number;
  detections: number;
}

export function framePath(parts: FramePathParts): (bytes: Uint8Array) => Promise<FrameTimes> {
  const { spec, maxPixels, jpeg } = parts;
  const { input } = spec.manifest;
  return async (bytes) => {
    const t0 = performance.now();
    const header = readImageHeader(bytes, maxPixels);
    const plan = planDecode(header, input, { turbo: jpeg !== undefined });
    let decoded: DecodedImage | undefined;
    if (plan.kind === 'turbo') {
      try {
        decoded = { rgb: jpeg!.decode(bytes, plan.scale), width: header.width, height: header.height, placement: plan.placement };
      } catch (error) {
        if (!(error instanceof TurboJpegRefusal)) throw error;
      }
    }
    const decoder = decoded ? 'turbo' : 'sharp';
    decoded ??= await decodeWithSharp(bytes, header, input, maxPixels);
    const t1 = performance.now();
    const tensor = buildInputTensor(decoded.rgb, input, decoded.placement, parts.buffers);
    const t2 = performance.now();
    const outputs = await parts.session.run({ [input.name]: parts.makeTensor(tensor) });
    const t3 = performance.now();
    const detections = candidatesToDetections(parts.decodeOutputs(outputs, spec.scoreThreshold), spec, decoded.placement, decoded);
    const t4 = performance.now();
    return { decoder, decodeMs: t1 - t0, tensorMs: t2 - t1, inferenceMs: t3 - t2, boxesMs: t4 - t3, detections: detections.length };
  };
}
