/**
 * One frame through every stage: decode -> tensor -> inference -> output decoding -> NMS -> boxes in
 * image pixels, each stage timed. Shared by the WebSocket and HTTP paths.
 */
import type { Detection, StageTimings } from '@sightline/shared/protocol';
import type { LoadedModel, ModelRegistry } from '../models/model-registry.ts';
import { decodeImage } from './decode-image.ts';
import type { InferencePool } from './inference-pool.ts';
import { mapBoxToImage } from './map-boxes.ts';
import { nonMaxSuppression } from './nms.ts';
import { TensorBufferPool } from './tensor-buffers.ts';
import { toTensor } from './to-tensor.ts';

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
  /** Every stage but serverMs, which only the transport can close. */
  timings: Omit<StageTimings, 'serverMs'>;
}

const round3 = (v: number): number => Math.round(v * 1000) / 1000;

function classIdOf(model: LoadedModel, labelIndex: number): number {
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
  resolveModel(name: string | undefined): LoadedModel {
    return this.registry.resolve(name);
  }

  async detect(request: DetectRequest): Promise<DetectResult> {
    const model = this.registry.resolve(request.model);
    const { input } = model.manifest;
    const threshold = request.threshold ?? model.scoreThreshold;

    const t0 = performance.now();
    const decoded = await decodeImage(request.image, input, this.maxPixels);
    const t1 = performance.now();
    const tensor = toTensor(decoded.rgb, input, decoded.placement, this.tensorBuffers);
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
      score: round3(c.score),
      box: mapBoxToImage(c.box, input, decoded.placement, decoded),
    }));
    const t4 = performance.now();

    return {
      model: model.manifest.name,
      width: decoded.width,
      height: decoded.height,
      detections,
      timings: {
        queueMs: round3(inference.queueMs),
        decodeMs: round3(t1 - t0),
        preprocessMs: round3(t2 - t1),
        inferenceMs: round3(inference.inferenceMs),
        postprocessMs: round3(inference.decodeMs + (t4 - t3)),
      },
    };
  }
}
