/**
 * A frame's detection, shared by the WebSocket and HTTP paths: the model resolved, the bytes handed to an
 * inference worker, which runs the whole frame path (decode, tensor, run, output decoding, boxes) and
 * times each stage; the wait for a worker becomes the frame's queueMs.
 */
import type { Detection, StageTimings } from '@sightline/shared/protocol';
import type { ModelSpec } from '../models/manifest.ts';
import type { ModelRegistry } from '../models/model-registry.ts';
import type { InferencePool } from './inference-pool.ts';

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
  /** Which decoder took the frame: `turbo` (libjpeg-turbo) or `sharp` (libvips). */
  decoder: string;
}

/** The stages the detector reports; queueMs is the wait for an inference worker only. */
export type DetectionStages = Omit<StageTimings, 'serverMs'>;

export class Detector {
  constructor(
    private readonly registry: ModelRegistry,
    private readonly pool: InferencePool,
  ) {}

  /** Throws ProtocolError `unknown_model` before any work is queued. */
  resolveModel(name: string | undefined): ModelSpec {
    return this.registry.resolve(name);
  }

  async detect(request: DetectRequest): Promise<DetectResult> {
    const model = this.registry.resolve(request.model);
    const { name } = model.manifest;
    // A copy the worker can take over: a WebSocket message's bytes may share their buffer with others.
    const image = new Uint8Array(request.image);
    const result = await this.pool.run({ model: name, threshold: request.threshold ?? model.scoreThreshold, image });
    const { width, height, detections, decoder, stages, queueMs } = result;
    return { model: name, width, height, detections, decoder, stages: { queueMs, ...stages } };
  }
}
