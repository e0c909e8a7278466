/**
 * One stream of the bare onnxruntime loop (bare-inference.ts): its own session with the gateway's options,
 * started together with the other streams, looping until the shared deadline.
 */
import { parentPort, workerData } from 'node:worker_threads';
import ort from 'onnxruntime-node';
import { inferenceSessionOptions } from '../src/pipeline/session-options.ts';

interface StreamSetup {
  path: string;
  inputName: string;
  dtype: 'float32' | 'uint8';
  dims: number[];
  data: Float32Array | Uint8Array;
  threads: number;
}

const { path, inputName, dtype, dims, data, threads } = workerData as StreamSetup;
const port = parentPort!;
const session = await ort.InferenceSession.create(path, inferenceSessionOptions(threads));
const feeds = { [inputName]: new ort.Tensor(dtype, data, dims) };
for (let i = 0; i < 5; i++) await session.run(feeds);
port.postMessage({ type: 'ready' });
port.once('message', async ({ deadline }: { deadline: number }) => {
  let runs = 0;
  let busyMs = 0;
  // performance.now() differs per thread; the deadline comes as wall-clock time.
  while (Date.now() < deadline) {
    const started = performance.now();
    await session.run(feeds);
    busyMs += performance.now() - started;
    runs++;
  }
  await session.release();
  port.postMessage({ type: 'done', runs, busyMs });
});
