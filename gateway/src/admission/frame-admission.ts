/**
 * A frame's checks on receipt, busy or not, before it may take a place in the queue: its model exists
 * (`unknown_model`) and that model's serving engine is up (`unavailable` while its circuit is open), its
 * bytes are an image within the limits (image-admission.ts: `bad_image`, `too_large`), and how it will be
 * decoded for that model (decode-plan.ts). What is learnt here travels with the frame to the inference
 * worker, which reads nothing of the bytes again before decoding them.
 */
import { planDecode } from '../decode/decode-plan.ts';
import type { FrameSource } from '../decode/frame-decoder.ts';
import type { EngineMonitor } from '../engines/engine-monitor.ts';
import type { ModelSpec } from '../models/manifest.ts';
import type { ModelRegistry } from '../models/model-registry.ts';
import { admitImage, type AdmissionLimits } from './image-admission.ts';

/** What a client asks of one frame, whatever way it came in. */
export interface FrameRequest {
  image: Uint8Array;
  model?: string | undefined;
  threshold?: number | undefined;
}

/** A frame that passed the checks: its model, its threshold, the frame as the worker will take it, its decode's price. */
export interface AdmittedFrame {
  spec: ModelSpec;
  threshold: number;
  frame: FrameSource;
  /** Bytes its decode will hold while it is processed (the scheduler's memory budget). */
  decodeBytes: number;
}

export interface FrameAdmissionDeps {
  registry: ModelRegistry;
  limits: AdmissionLimits;
  /** Whether the inference workers decode JPEG with libjpeg-turbo (the plan may pick it). */
  decodesJpeg: () => boolean;
  /** The remote engines' health, for the models they run; none: every model runs locally. */
  engines?: EngineMonitor | undefined;
}

/** Throws ProtocolError `unknown_model`, `unavailable`, `bad_image` or `too_large`. */
export function admitFrame(request: FrameRequest, deps: FrameAdmissionDeps): AdmittedFrame {
  const spec = deps.registry.resolve(request.model);
  deps.engines?.check(spec.manifest.name);
  const { header, decodeBytes } = admitImage(request.image, deps.limits);
  const plan = planDecode(header, spec.manifest.input, { turbo: deps.decodesJpeg() });
  return {
    spec,
    threshold: request.threshold ?? spec.scoreThreshold,
    frame: { kind: 'encoded', bytes: request.image, header, plan },
    decodeBytes,
  };
}
