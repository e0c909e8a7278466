/**
 * A frame between its admission and its answer, whatever way it came in: what the scheduler queues and the
 * executor runs (an InferenceJob), what it is answered with, and how. Every way in hands the frame core one
 * of these per frame and is called back exactly once: detected, dropped or failed.
 */
import type { DropReason } from '@sightline/shared/protocol';
import type { FrameResult } from '@sightline/shared/model';
import type { ModelSpec } from '../models/manifest.ts';
import type { InferenceJob } from '../inference/inference-executor.ts';

/** A detected frame, before its transport adds the reply's envelope (id, ts, serverMs). */
export interface Detected {
  model: string;
  /** Where the model ran: the gateway's own workers, or a serving engine (inferenceMs is then its round trip). */
  runner: 'local' | 'remote';
  /** The frame path's result: the picture's size, the detections, the worker's stage times, the decoder. */
  result: FrameResult;
  /** From receipt to the start of its run, on one clock: the frame's whole wait (queueMs). */
  queueMs: number;
}

/** How a frame is answered; each frame gets exactly one call. */
export interface FrameAnswer {
  detected(detected: Detected): void;
  /** Not processed: `retryAfterMs` when the client should send its next frame. */
  dropped(reason: DropReason, retryAfterMs?: number): void;
  /** A ProtocolError is the client's to read; anything else is the gateway's fault (logged, sent as `internal`). */
  failed(error: unknown): void;
}

/** `answer`, with what a detected frame is answered with changed by `map` (track ids, the decoder's time). */
export function mapDetected(answer: FrameAnswer, map: (detected: Detected) => Detected): FrameAnswer {
  return {
    detected: (detected) => answer.detected(map(detected)),
    dropped: (reason, retryAfterMs) => answer.dropped(reason, retryAfterMs),
    failed: (error) => answer.failed(error),
  };
}

export interface PendingFrame extends InferenceJob {
  spec: ModelSpec;
  /** Bytes its decode will hold while it is processed. */
  decodeBytes: number;
  /** performance.now() when the whole message had arrived. */
  receivedAt: number;
  /** The frame's capture time (the client's `ts`), for tracking. */
  capturedAt: number;
  answer: FrameAnswer;
}
