/** Messages between the gateway's event loop and its inference workers. */
import type { ErrorCode } from '@sightline/shared/protocol';
import type { FrameResult } from '@sightline/shared/model';
import type { FrameSource } from '../decode/frame-decoder.ts';
import type { ModelSpec } from '../models/manifest.ts';

export interface WorkerSetup {
  /** Each model gets one session for each of these intra-op thread counts (inference-schedule.ts). */
  threadCounts: number[];
  /** Every decoder refuses anything larger, as the header check does. */
  maxPixels: number;
  /** Decode JPEG with libjpeg-turbo (false: sharp decodes every frame). */
  turbo: boolean;
  /** Bound on one request to a remote inference engine. */
  engineTimeoutMs: number;
}

export type WorkerRequest =
  /** Open (or replace) a model: its sessions, warmed up; the replaced ones are released once no frame runs on them. */
  | { type: 'load'; requestId: number; spec: ModelSpec }
  | { type: 'unload'; requestId: number; model: string }
  | {
      type: 'run';
      model: string;
      /** Which of the model's sessions: one of the setup's thread counts. */
      threads: number;
      /**
       * One frame, or several of this model run as one batch; each with what admission read of it (header and
       * decode plan) or already decoded pixels, its bytes in a buffer of its own (transferred, not copied).
       */
      frames: { jobId: number; threshold: number; frame: FrameSource }[];
    }
  /** Release the sessions and end the thread (sent only when no run is in progress). */
  | { type: 'stop' };

export type WorkerReply =
  | { type: 'ready'; turbo: boolean }
  /** `batchable`: the graph takes several frames at once (its input's dim 0 is not fixed). */
  | { type: 'loaded'; requestId: number; batchable: boolean }
  /** The model could not be opened here: onnxruntime's or the decoder's reason. */
  | { type: 'load_failed'; requestId: number; message: string }
  | { type: 'unloaded'; requestId: number }
  /** The whole frame path ran in the worker: only the detections and the stage timings cross back. */
  | { type: 'done'; jobId: number; result: FrameResult }
  /** `code` is the protocol's when the frame was refused (bad_image, too_large, unknown_model), `internal` for a fault. */
  | { type: 'failed'; jobId: number; code: ErrorCode; message: string; retryAfterMs?: number };
