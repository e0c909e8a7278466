/**
 * One stream of the bare onnxruntime loop (inference.ts): its own session with the gateway's options,
 * started together with the other streams, looping until the shared deadline.
 */
import { parentPort, workerData } from 'node:worker_threads';
import ort, { type InferenceSession } from 'onnxruntime-node';

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
const port = parentPort!;
const session = await ort.InferenceSession.create(path, sessionOptions);
const feeds = { [inputName]: new ort.Tensor(dtype, data, dims) };
for (let i = 0; i < 5; i++) await session.run(feeds);
port.postMessage({ type: 'ready' });
port.once('message', async ({ deadline }: { deadline: number }) => {
  let runs = 0;
  let busyMs = 0;
  // performance.now() differs per thread; the deadline comes as wall-clock time.
  // At least one run per stream, however busy the machine: a result is never empty.
  do {
    const started = performance.now();
    await session.run(feeds);
    busyMs += performance.now() - started;
    runs++;
  } while (Date.now() < deadline);
  await session.release();
  port.postMessage({ type: 'done', runs, busyMs });
});
