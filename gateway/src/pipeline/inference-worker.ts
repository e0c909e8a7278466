/**
 * Worker thread that owns the onnxruntime sessions. onnxruntime-node runs a model synchronously on the
 * calling thread, so inference lives here to keep the gateway's event loop free for sockets and pings.
 */
import { parentPort, workerData } from 'node:worker_threads';
import ort from 'onnxruntime-node';
import type { TensorPayload, WorkerReply, WorkerRequest, WorkerSetup } from './inference-messages.ts';

const setup = workerData as WorkerSetup;
const sessions = new Map<string, { session: ort.InferenceSession; inputName: string }>();

function toTensor(payload: TensorPayload): ort.Tensor {
  return new ort.Tensor(payload.dtype, payload.data, payload.dims);
}

async function loadSessions(): Promise<void> {
  for (const model of setup.models) {
    const session = await ort.InferenceSession.create(model.path, {
      intraOpNumThreads: setup.threads,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
      logSeverityLevel: 3,
    });
    // The first runs allocate buffers and pick kernels; pay for them before the first client frame.
    const size = model.warmupInput.dims.reduce((a, b) => a * b, 1);
    const zeros = model.warmupInput.dtype === 'uint8' ? new Uint8Array(size) : new Float32Array(size);
    for (let i = 0; i < 2; i++) {
      await session.run({ [model.inputName]: toTensor({ ...model.warmupInput, data: zeros }) });
    }
    sessions.set(model.name, { session, inputName: model.inputName });
  }
}

async function run(request: Extract<WorkerRequest, { type: 'run' }>): Promise<void> {
  const entry = sessions.get(request.model);
  if (!entry) {
    reply({ type: 'failed', jobId: request.jobId, message: `model ${request.model} is not loaded in this worker` });
    return;
  }
  try {
    const started = performance.now();
    const results = await entry.session.run({ [entry.inputName]: toTensor(request.input) });
    const runMs = performance.now() - started;
    const outputs: Record<string, TensorPayload> = {};
    const transfer = new Set<ArrayBuffer>();
    for (const [name, tensor] of Object.entries(results)) {
      const data = tensor.data as Float32Array;
      outputs[name] = { dtype: 'float32', dims: [...tensor.dims], data };
      transfer.add(data.buffer as ArrayBuffer);
    }
    reply({ type: 'done', jobId: request.jobId, outputs, runMs }, [...transfer]);
  } catch (error) {
    reply({ type: 'failed', jobId: request.jobId, message: error instanceof Error ? error.message : String(error) });
  }
}

function reply(message: WorkerReply, transfer: ArrayBuffer[] = []): void {
  parentPort!.postMessage(message, transfer);
}

parentPort!.on('message', (request: WorkerRequest) => {
  if (request.type === 'run') void run(request);
});

loadSessions().then(
  () => reply({ type: 'ready' }),
  (error: unknown) => reply({ type: 'load_failed', message: error instanceof Error ? error.message : String(error) }),
);
