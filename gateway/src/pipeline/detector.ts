/**
 * One frame through every stage: header -> decode -> tensor -> inference -> output decoding -> NMS ->
 * boxes in image pixels, each stage timed. Shared by the WebSocket and HTTP paths.
 *
 * A plain JPEG goes to an inference worker as it is: the worker decodes it (libjpeg-turbo, DCT-scaled),
 * builds the tensor and runs the model, so the frame crosses threads once. Anything else, or a JPEG the
 * worker's decoder refuses, is decoded by sharp here first and handed over as pixels.
 */
import type { Detection, StageTimings } from '@sightline/shared/protocol';
import { candidatesToDetections, type Placement } from '@sightline/shared/model';
import type { ModelSpec } from '../models/manifest.ts';
import type { ModelRegistry } from '../models/model-registry.ts';
import { decodeWithSharp } from './decode-image.ts';
import { planDecode } from './decode-plan.ts';
import { readImageHeader } from './image-header.ts';
import { JpegRefused, type InferencePool, type InferenceResult } from './inference-pool.ts';

export interface DetectRequest {
  image: Uint8Array;
  model?: string | undefined;
  threshold?: number | undefined;
}

export interface DetectResult {
  model: string;
  width: number;
  height: number;
  detections: Detection[];
  /** Every stage but serverMs, which only the transport can close; unrounded (replies.ts rounds). */
  stages: DetectionStages;
  /** Which decoder took the frame: `turbo` (libjpeg-turbo in the worker) or `sharp`. */
  decoder: 'turbo' | 'sharp';
}

/** The stages the detector times; queueMs is the wait for an inference worker only. */
export type DetectionStages = Omit<StageTimings, 'serverMs'>;

export class Detector {
  constructor(
    private readonly registry: ModelRegistry,
    private readonly pool: InferencePool,
    private readonly maxPixels: number,
  ) {}

  /** Throws ProtocolError `unknown_model` before any work is queued. */
  resolveModel(name: string | undefined): ModelSpec {
    return this.registry.resolve(name);
  }

  async detect(request: DetectRequest): Promise<DetectResult> {
    const model = this.registry.resolve(request.model);
    const { input, name } = model.manifest;
    const threshold = request.threshold ?? model.scoreThreshold;

    const t0 = performance.now();
    const header = readImageHeader(request.image, this.maxPixels);
    const plan = planDecode(header, input, { turbo: this.pool.decodesJpeg });
    let decodeMs = performance.now() - t0;
    let size = { width: header.width, height: header.height };
    let placement: Placement = plan.placement;
    let inference: InferenceResult | undefined;
    if (plan.kind === 'turbo') {
      try {
        // A copy the worker can take over: a WebSocket message's bytes may share their buffer with others.
        const bytes = new Uint8Array(request.image);
        inference = await this.pool.run({ model: name, threshold, image: { kind: 'jpeg', bytes, scale: plan.scale }, placement });
      } catch (error) {
        if (!(error instanceof JpegRefused)) throw error;
      }
    }
    const decoder = inference ? 'turbo' : 'sharp';
    if (!inference) {
      const t1 = performance.now();
      const decoded = await decodeWithSharp(request.image, header, input, this.maxPixels);
      decodeMs += performance.now() - t1;
      size = decoded;
      placement = decoded.placement;
      inference = await this.pool.run({ model: name, threshold, image: { kind: 'rgb', rgb: decoded.rgb }, placement });
    }
    const t2 = performance.now();
    const detections = candidatesToDetections(inference.candidates, model, placement, size);
    const mappingMs = performance.now() - t2;

    return {
      model: name,
      width: size.width,
      height: size.height,
      detections,
      decoder,
      stages: {
        queueMs: inference.queueMs,
        decodeMs: decodeMs + inference.decodeMs,
        preprocessMs: inference.preprocessMs,
        inferenceMs: inference.inferenceMs,
        postprocessMs: inference.outputDecodeMs + mappingMs,
      },
    };
  }
}
