/**
 * One stream of the bare onnxruntime loop (inference.ts): its own session with the gateway's options,
 * started together with the other streams, looping until the shared deadline.
 */
import { workerData } from 'node:worker_threads';
import ort, { type InferenceSession } from 'onnxruntime-node';
import { serveStream } from './stream-worker.ts';

interface StreamSetup {
  path: string;
  inputName: string;
  dtype: 'float32' | 'uint8';
  dims: number[];
  data: Float32Array | Uint8Array;
  /** The gateway's options, built by the parent: this thread then loads onnxruntime alone, not the gateway. */
  sessionOptions: InferenceSession.SessionOptions;
}

const { path, inputName, dtype, dims, data, sessionOptions } = workerData as StreamSetup;
const session = await ort.InferenceSession.create(path, sessionOptions);
const feeds = { [inputName]: new ort.Tensor(dtype, data, dims) };
for (let i = 0; i < 5; i++) await session.run(feeds);
serveStream(
  () => session.run(feeds),
  async () => {
    await session.release();
    return {};
  },
);
