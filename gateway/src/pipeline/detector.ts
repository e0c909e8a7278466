/**
 * One frame through every stage: decode -> tensor -> inference -> output decoding -> NMS -> boxes in
 * image pixels, each stage timed. Shared by the WebSocket and HTTP paths.
 */
import type { Detection, StageTimings } from '@sightline/shared/protocol';
import { roundTo } from '@sightline/shared/stats';
import type { ModelSpec } from '../models/manifest.ts';
import type { ModelRegistry } from '../models/model-registry.ts';
import { decodeImage } from './decode-image.ts';
import type { InferencePool } from './inference-pool.ts';
import { buildInputTensor } from './input-tensor.ts';
import { mapBoxToImage } from './map-boxes.ts';
import { nonMaxSuppression } from './nms.ts';
import { TensorBufferPool } from './tensor-buffers.ts';

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
}

/** The stages the detector times; queueMs is the wait for an inference worker only. */
export type DetectionStages = Omit<StageTimings, 'serverMs'>;

function classIdOf(model: ModelSpec, labelIndex: number): number {
  return model.manifest.classIds === 'coco' ? labelIndex + 1 : labelIndex;
}

export class Detector {
  private readonly tensorBuffers = new TensorBufferPool();

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
    const { input } = model.manifest;
    const threshold = request.threshold ?? model.scoreThreshold;

    const t0 = performance.now();
    const decoded = await decodeImage(request.image, input, this.maxPixels);
    const t1 = performance.now();
    const tensor = buildInputTensor(decoded.rgb, input, decoded.placement, this.tensorBuffers);
    const t2 = performance.now();
    let inference;
    try {
      inference = await this.pool.run(model.manifest.name, tensor, threshold);
    } finally {
      // Refused before dispatch, the buffer is still ours; a worker that failed keeps it (release ignores it).
      this.tensorBuffers.release(tensor.data);
    }
    this.tensorBuffers.release(inference.input);
    const t3 = performance.now();
    const candidates = inference.candidates.filter((c) => model.labels[c.labelIndex]);
    const kept = nonMaxSuppression(candidates, model.manifest.iouThreshold, model.manifest.maxDetections);
    const detections: Detection[] = kept.map((c) => ({
      label: model.labels[c.labelIndex]!,
      classId: classIdOf(model, c.labelIndex),
      score: roundTo(c.score, 3),
      box: mapBoxToImage(c.box, input, decoded.placement, decoded),
    }));
    const t4 = performance.now();

    return {
      model: model.manifest.name,
      width: decoded.width,
      height: decoded.height,
      detections,
      stages: {
        queueMs: inference.queueMs,
        decodeMs: t1 - t0,
        preprocessMs: t2 - t1,
        inferenceMs: inference.inferenceMs,
        postprocessMs: inference.outputDecodeMs + (t4 - t3),
      },
    };
  }
}
