// One stream of the bare onnxruntime loop (bare-inference.ts): its own session, started together with
// the other streams, looping until the shared deadline. Plain JavaScript, so no TypeScript loader is needed.
import { parentPort, workerData } from 'node:worker_threads';
import ort from 'onnxruntime-node';

const { path, inputName, dtype, dims, data, threads } = workerData;
// The gateway's session options (src/pipeline/inference-worker.ts), so the limit is the same runtime's.
const session = await ort.InferenceSession.create(path, {
  intraOpNumThreads: threads,
  interOpNumThreads: 1,
  executionMode: 'sequential',
  graphOptimizationLevel: 'all',
  logSeverityLevel: 3,
  extra: { session: { force_spinning_stop: '1' } },
});
const feeds = { [inputName]: new ort.Tensor(dtype, data, dims) };
for (let i = 0; i < 5; i++) await session.run(feeds);
parentPort.postMessage({ type: 'ready' });
parentPort.once('message', async ({ deadline }) => {
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
  parentPort.postMessage({ type: 'done', runs, busyMs });
});
