/** Messages between the gateway's event loop and its inference workers. */
import type { Candidate, Placement, RgbImage } from '@sightline/shared/model';
import type { ModelSpec } from '../models/manifest.ts';
import type { DctScale } from './jpeg-turbo.ts';

/**
 * The picture a worker turns into the model's input: JPEG bytes it decodes itself (the fast path: the
 * frame crosses threads once, as compressed bytes), or pixels libvips already decoded.
 */
export type FrameImage = { kind: 'jpeg'; bytes: Uint8Array; scale: DctScale } | { kind: 'rgb'; rgb: RgbImage };

export interface WorkerSetup {
  /** One session per model for each of these intra-op thread counts (inference-schedule.ts). */
  threadCounts: number[];
  /** The worker builds each model's session and output decoder from its spec. */
  models: ModelSpec[];
  /** The JPEG decoder refuses anything larger, as the header check did. */
  maxPixels: number;
  /** Decode JPEG in the worker with libjpeg-turbo (false: every frame comes as pixels from sharp). */
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
      image: FrameImage;
      /** Where the picture goes in the input tensor. */
      placement: Placement;
    }
  /** Release the sessions and end the thread (sent only when no run is in progress). */
  | { type: 'stop' };

/** The worker's own timings of one frame, in ms. */
export interface WorkerTimings {
  /** JPEG decoding in the worker; 0 for pixels decoded by sharp. */
  decodeMs: number;
  /** Pixels to the input tensor. */
  preprocessMs: number;
  /** onnxruntime's run. */
  inferenceMs: number;
  /** Raw outputs to candidates. */
  outputDecodeMs: number;
}

export type WorkerReply =
  | { type: 'ready'; turbo: boolean }
  | { type: 'load_failed'; message: string }
  | ({
      type: 'done';
      jobId: number;
      /** Decoded in the worker: only these few boxes cross back, not the raw outputs (~0.7 MB). */
      candidates: Candidate[];
    } & WorkerTimings)
  /** The worker's JPEG decoder does not take this image (CMYK, 12-bit, damaged): decode it with sharp. */
  | { type: 'refused'; jobId: number; message: string }
  | { type: 'failed'; jobId: number; message: string };
