/** Messages between the gateway's event loop and its inference workers. */
import type { ModelSpec } from '../models/manifest.ts';
import type { Candidate } from './output-decoders/types.ts';

export interface TensorPayload {
  dtype: 'float32' | 'uint8';
  dims: number[];
  data: Float32Array | Uint8Array;
}

export interface WorkerSetup {
  /** One session per model for each of these intra-op thread counts (inference-schedule.ts). */
  threadCounts: number[];
  /** The worker builds each model's session and output decoder from its spec. */
  models: ModelSpec[];
}

export type WorkerRequest =
  | {
      type: 'run';
      jobId: number;
      model: string;
      /** Which of the worker's sessions: one of its setup's thread counts. */
      threads: number;
      input: TensorPayload;
      threshold: number;
    }
  /** Release the sessions and end the thread (sent only when no run is in progress). */
  | { type: 'stop' };

export type WorkerReply =
  | { type: 'ready' }
  | { type: 'load_failed'; message: string }
  | {
      type: 'done';
      jobId: number;
      /** Decoded in the worker: only these few boxes cross back, not the raw outputs (~0.7 MB). */
      candidates: Candidate[];
      /** The request's input buffer, handed back for reuse. */
      input: TensorPayload['data'];
      /** The worker's decoding of the raw outputs into candidates. */
      outputDecodeMs: number;
    }
  | { type: 'failed'; jobId: number; message: string };
