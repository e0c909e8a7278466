/**
 * A frame's detection, shared by the WebSocket and HTTP paths, in two steps. On receipt, `admit` resolves
 * the model and checks the image's header (frame-admission.ts), so a frame that cannot be detected is
 * refused before it is queued. In its turn, `detect` hands the bytes to an inference worker, which runs
 * the whole frame path (decode, tensor, run, output decoding, boxes) and times each stage; the wait for a
 * worker becomes the frame's queueMs.
 */
import type { Detection, StageTimings } from '@sightline/shared/protocol';
import type { ModelSpec } from '../models/manifest.ts';
import type { ModelRegistry } from '../models/model-registry.ts';
import { ProtocolError } from '@sightline/shared/validation';
import type { EngineMonitor } from '../engines/engine-monitor.ts';
import { admitImage, type AdmissionLimits, type FrameAdmission } from './frame-admission.ts';
import type { InferencePool } from '../inference/inference-pool.ts';

export interface DetectRequest {
  image: Uint8Array;
  model?: string | undefined;
  threshold?: number | undefined;
}

/** A request that passed the checks on receipt: its model, its header, its decode's memory cost. */
export interface AdmittedFrame extends FrameAdmission {
  request: DetectRequest;
  model: ModelSpec;
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
  /** Where the model ran: the gateway's own workers, or a serving engine (inferenceMs is then its round trip). */
  runner: 'local' | 'remote';
}

/** The stages the detector reports; queueMs is the wait for an inference worker only. */
export type DetectionStages = Omit<StageTimings, 'serverMs'>;

export class Detector {
  constructor(
    private readonly registry: ModelRegistry,
    private readonly pool: InferencePool,
    private readonly limits: AdmissionLimits,
    /** The remote engines' health, for models they run; none: every model runs locally. */
    private readonly engines?: EngineMonitor,
  ) {}

  /**
   * Throws ProtocolError `unknown_model`, `bad_image`, `too_large`, or `unavailable` (the model's engine is
   * not answering): checked on receipt, before any queue.
   */
  admit(request: DetectRequest): AdmittedFrame {
    const model = this.registry.resolve(request.model);
    this.engines?.check(model.manifest.name);
    const admission = admitImage(request.image, this.limits);
    return { request, model, ...admission };
  }

  async detect({ request, model }: AdmittedFrame): Promise<DetectResult> {
    const { name } = model.manifest;
    // A copy the worker can take over: a WebSocket message's bytes may share their buffer with others.
    const image = new Uint8Array(request.image);
    let result;
    try {
      result = await this.pool.run({ model: name, threshold: request.threshold ?? model.scoreThreshold, image });
    } catch (error) {
      if (model.engine && error instanceof ProtocolError && error.code === 'unavailable') this.engines?.failed(name, error.message);
      throw error;
    }
    if (model.engine) this.engines?.succeeded(name);
    const { width, height, detections, decoder, stages, queueMs } = result;
    return { model: name, width, height, detections, decoder, runner: model.engine ? 'remote' : 'local', stages: { queueMs, ...stages } };
  }
}
