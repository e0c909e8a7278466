/** Messages between the gateway's event loop and its inference workers. */
import type { ErrorCode } from '@sightline/shared/protocol';
import type { FrameResult } from '@sightline/shared/model';
import type { ModelSpec } from '../models/manifest.ts';

export interface WorkerSetup {
  /** One session per model for each of these intra-op thread counts (inference-schedule.ts). */
  threadCounts: number[];
  /** The worker builds each model's session and frame path from its spec. */
  models: ModelSpec[];
  /** Every decoder refuses anything larger, as the header check does. */
  maxPixels: number;
  /** Decode JPEG with libjpeg-turbo (false: sharp decodes every frame). */
  turbo: boolean;
}

export type WorkerRequest =
  | {
      type: 'run';
      jobId: number;
      model: string;
      /** Which of the worker's sessions: one of its setup's thread counts. */
      threads: number;
      threshold: number;
      /** The frame's encoded bytes, in a buffer of their own (transferred, not copied). */
      image: Uint8Array;
    }
  /** Release the sessions and end the thread (sent only when no run is in progress). */
  | { type: 'stop' };

export type WorkerReply =
  | { type: 'ready'; turbo: boolean }
  | { type: 'load_failed'; message: string }
  /** The whole frame path ran in the worker: only the detections and the stage timings cross back. */
  | { type: 'done'; jobId: number; result: FrameResult }
  /** `code` is the protocol's when the frame was refused (bad_image, too_large), `internal` for a fault. */
  | { type: 'failed'; jobId: number; code: ErrorCode; message: string };
