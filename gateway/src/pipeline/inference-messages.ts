/** Messages between the gateway's event loop and its inference workers. */

export interface TensorPayload {
  dtype: 'float32' | 'uint8';
  dims: number[];
  data: Float32Array | Uint8Array;
}

export interface WorkerModel {
  name: string;
  path: string;
  inputName: string;
  warmupInput: Omit<TensorPayload, 'data'>;
}

export interface WorkerSetup {
  threads: number;
  models: WorkerModel[];
}

export type WorkerRequest = { type: 'run'; jobId: number; model: string; input: TensorPayload };

export type WorkerReply =
  | { type: 'ready' }
  | { type: 'load_failed'; message: string }
  | { type: 'done'; jobId: number; outputs: Record<string, TensorPayload>; runMs: number }
  | { type: 'failed'; jobId: number; message: string };
