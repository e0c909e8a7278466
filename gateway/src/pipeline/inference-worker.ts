/**
 * Worker thread that owns the onnxruntime sessions and runs the whole frame path of every frame it is
 * given (shared/src/model/frame-path.ts): decode (libjpeg-turbo, or sharp for what it does not take),
 * input tensor, run, output decoding, boxes. So a frame crosses threads once (compressed bytes in, a few
 * detections out) and the gateway's event loop stays free for sockets and pings. onnxruntime-node runs a
 * model synchronously on the calling thread, which is why it lives here at all.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { runFrame, warmUpFramePath, type FramePath } from '@sightline/shared/model';
import { ProtocolError } from '@sightline/shared/validation';
import { createFrameDecoder } from './frame-decoder.ts';
import type { WorkerReply, WorkerRequest, WorkerSetup } from './inference-messages.ts';
import { TurboJpegDecoder } from './jpeg-turbo.ts';
import { framePathOf, openOnnxRunner, type OnnxRunner } from './local-frame-path.ts';

const setup = workerData as WorkerSetup;
const jpeg = setup.turbo ? TurboJpegDecoder.open(setup.maxPixels) : undefined;
const decode = createFrameDecoder({ maxPixels: setup.maxPixels, jpeg });

/** Keyed by pathKey(model, threads). This worker runs one frame at a time, so each path reuses one input buffer. */
const paths = new Map<string, FramePath>();
const runners: OnnxRunner[] = [];
const pathKey = (model: string, threads: number) => `${model}/${threads}`;

async function load(): Promise<void> {
  for (const spec of setup.models) {
    for (const threads of setup.threadCounts) {
      const runner = await openOnnxRunner(spec, threads);
      runners.push(runner);
      const path = framePathOf(spec, decode, runner.run);
      await warmUpFramePath(path);
      paths.set(pathKey(spec.manifest.name, threads), path);
    }
  }
}

async function run(request: Extract<WorkerRequest, { type: 'run' }>): Promise<void> {
  const { jobId } = request;
  const path = paths.get(pathKey(request.model, request.threads));
  if (!path) {
    reply({
      type: 'failed',
      jobId,
      code: 'internal',
      message: `model ${request.model} with ${request.threads} thread(s) is not loaded here`,
    });
    return;
  }
  try {
    reply({ type: 'done', jobId, result: await runFrame(path, request.image, request.threshold) });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    reply({ type: 'failed', jobId, code: error instanceof ProtocolError ? error.code : 'internal', message });
  }
}

async function stop(): Promise<void> {
  for (const runner of runners) await runner.release();
  paths.clear();
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

load().then(
  () => reply({ type: 'ready', turbo: jpeg !== undefined }),
  (error: unknown) => reply({ type: 'load_failed', message: error instanceof Error ? error.message : String(error) }),
);
