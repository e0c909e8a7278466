/**
 * Worker thread that owns the onnxruntime sessions: it decodes a frame's JPEG (libjpeg-turbo), builds the
 * input tensor, runs the model and decodes its outputs, so a frame crosses threads once (compressed bytes
 * in, a handful of candidate boxes out) and the gateway's event loop stays free for sockets and pings.
 * onnxruntime-node runs a model synchronously on the calling thread, which is why it lives here at all.
 */
import { parentPort, workerData } from 'node:worker_threads';
import ort from 'onnxruntime-node';
import {
  buildInputTensor,
  createDecoder,
  inputDims,
  reusedFloatBuffers,
  type FloatBuffers,
  type InputTensor,
  type OutputDecoder,
  type RgbImage,
} from '@sightline/shared/model';
import type { ModelSpec } from '../models/manifest.ts';
import type { WorkerReply, WorkerRequest, WorkerSetup } from './inference-messages.ts';
import { TurboJpegDecoder, TurboJpegRefusal } from './jpeg-turbo.ts';
import { inferenceSessionOptions } from './session-options.ts';

const setup = workerData as WorkerSetup;
const jpeg = setup.turbo ? TurboJpegDecoder.open(setup.maxPixels) : undefined;

interface Loaded {
  session: ort.InferenceSession;
  spec: ModelSpec;
  decoder: OutputDecoder;
  /** This worker runs one frame at a time, so one input buffer per model is reused for every frame. */
  buffers: FloatBuffers;
}

/** Keyed by sessionKey(model, threads). */
const sessions = new Map<string, Loaded>();
const sessionKey = (model: string, threads: number) => `${model}/${threads}`;

function ortTensor(tensor: InputTensor): ort.Tensor {
  return new ort.Tensor(tensor.dtype, tensor.data, tensor.dims);
}

async function loadSessions(): Promise<void> {
  for (const spec of setup.models) {
    const decoder = createDecoder(spec.manifest);
    const buffers = reusedFloatBuffers();
    for (const threads of setup.threadCounts) await loadSession(spec, threads, decoder, buffers);
  }
}

async function loadSession(spec: ModelSpec, threads: number, decoder: OutputDecoder, buffers: FloatBuffers): Promise<void> {
  const session = await ort.InferenceSession.create(spec.modelPath, inferenceSessionOptions(threads));
  const { input } = spec.manifest;
  // The first runs allocate buffers and pick kernels; pay for them before the first client frame.
  const dims = inputDims(input);
  const size = dims.reduce((a, b) => a * b, 1);
  const zeros = input.dtype === 'uint8' ? new Uint8Array(size) : new Float32Array(size);
  for (let i = 0; i < 2; i++) decoder(await session.run({ [input.name]: ortTensor({ dtype: input.dtype, dims, data: zeros }) }), 1);
  sessions.set(sessionKey(spec.manifest.name, threads), { session, spec, decoder, buffers });
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
    const t0 = performance.now();
    let rgb: RgbImage;
    if (request.image.kind === 'jpeg') {
      if (!jpeg) throw new TurboJpegRefusal('no libjpeg-turbo in this worker');
      rgb = jpeg.decode(request.image.bytes, request.image.scale);
    } else {
      rgb = request.image.rgb;
    }
    const t1 = performance.now();
    const tensor = buildInputTensor(rgb, entry.spec.manifest.input, request.placement, entry.buffers);
    const t2 = performance.now();
    const outputs = await entry.session.run({ [entry.spec.manifest.input.name]: ortTensor(tensor) });
    const t3 = performance.now();
    const candidates = entry.decoder(outputs, request.threshold);
    const t4 = performance.now();
    reply({
      type: 'done',
      jobId: request.jobId,
      candidates,
      decodeMs: request.image.kind === 'jpeg' ? t1 - t0 : 0,
      preprocessMs: t2 - t1,
      inferenceMs: t3 - t2,
      outputDecodeMs: t4 - t3,
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    reply(
      error instanceof TurboJpegRefusal
        ? { type: 'refused', jobId: request.jobId, message }
        : { type: 'failed', jobId: request.jobId, message },
    );
  }
}

async function stop(): Promise<void> {
  for (const { session } of sessions.values()) await session.release();
  sessions.clear();
  jpeg?.close();
  // Nothing left on this thread's event loop: it ends by itself, cleanly, instead of being torn down.
  parentPort!.close();
}

function reply(message: WorkerReply): void {
  parentPort!.postMessage(message);
}

parentPort!.on('message', (request: WorkerRequest) => {
  if (request.type === 'run') void run(request);
  else if (request.type === 'stop') void stop();
});

loadSessions().then(
  () => reply({ type: 'ready', turbo: jpeg !== undefined }),
  (error: unknown) => reply({ type: 'load_failed', message: error instanceof Error ? error.message : String(error) }),
);
