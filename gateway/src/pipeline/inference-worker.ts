/**
 * Worker thread that owns the onnxruntime sessions and the models' output decoders. onnxruntime-node
 * runs a model synchronously on the calling thread, so inference lives here to keep the gateway's event
 * loop free for sockets and pings; decoding the raw outputs here too means only a handful of candidate
 * boxes cross back to the event loop instead of ~0.7 MB of scores per frame.
 */
import { parentPort, workerData } from 'node:worker_threads';
import ort from 'onnxruntime-node';
import { createDecoder, type OutputDecoder } from './output-decoders/index.ts';
import type { ModelSpec } from '../models/manifest.ts';
import { inputDims } from './input-tensor.ts';
import type { TensorPayload, WorkerReply, WorkerRequest, WorkerSetup } from './inference-messages.ts';
import { inferenceSessionOptions } from './session-options.ts';

const setup = workerData as WorkerSetup;
/** Keyed by sessionKey(model, threads). */
const sessions = new Map<string, { session: ort.InferenceSession; inputName: string; decoder: OutputDecoder }>();

const sessionKey = (model: string, threads: number) => `${model}/${threads}`;

function ortTensor(payload: TensorPayload): ort.Tensor {
  return new ort.Tensor(payload.dtype, payload.data, payload.dims);
}

async function loadSessions(): Promise<void> {
  for (const model of setup.models) {
    const decoder = createDecoder(model.manifest);
    for (const threads of setup.threadCounts) await loadSession(model, threads, decoder);
  }
}

async function loadSession(model: ModelSpec, threads: number, decoder: OutputDecoder): Promise<void> {
  const session = await ort.InferenceSession.create(model.modelPath, inferenceSessionOptions(threads));
  const { input } = model.manifest;
  // The first runs allocate buffers and pick kernels; pay for them before the first client frame.
  const dims = inputDims(input);
  const size = dims.reduce((a, b) => a * b, 1);
  const zeros = input.dtype === 'uint8' ? new Uint8Array(size) : new Float32Array(size);
  for (let i = 0; i < 2; i++) {
    decoder(await session.run({ [input.name]: ortTensor({ dtype: input.dtype, dims, data: zeros }) }), 1);
  }
  sessions.set(sessionKey(model.manifest.name, threads), { session, inputName: input.name, decoder });
}

async function run(request: Extract<WorkerRequest, { type: 'run' }>): Promise<void> {
  const entry = sessions.get(sessionKey(request.model, request.threads));
  if (!entry) {
    reply({
      type: 'failed',
      jobId: request.jobId,
      message: `model ${request.model} with ${request.threads} thread(s) is not loaded in this worker`,
    });
    return;
  }
  try {
    const outputs = await entry.session.run({ [entry.inputName]: ortTensor(request.input) });
    const ran = performance.now();
    const candidates = entry.decoder(outputs, request.threshold);
    const outputDecodeMs = performance.now() - ran;
    const { data } = request.input;
    reply({ type: 'done', jobId: request.jobId, candidates, input: data, outputDecodeMs }, [data.buffer as ArrayBuffer]);
  } catch (error) {
    reply({ type: 'failed', jobId: request.jobId, message: error instanceof Error ? error.message : String(error) });
  }
}

function reply(message: WorkerReply, transfer: ArrayBuffer[] = []): void {
  parentPort!.postMessage(message, transfer);
}

async function stop(): Promise<void> {
  for (const { session } of sessions.values()) await session.release();
  sessions.clear();
  // Nothing left on this thread's event loop: it ends by itself, cleanly, instead of being torn down.
  parentPort!.close();
}

parentPort!.on('message', (request: WorkerRequest) => {
  if (request.type === 'run') void run(request);
  else if (request.type === 'stop') void stop();
});

loadSessions().then(
  () => reply({ type: 'ready' }),
  (error: unknown) => reply({ type: 'load_failed', message: error instanceof Error ? error.message : String(error) }),
);
