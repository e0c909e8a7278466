/**
 * Worker thread that owns the onnxruntime sessions and runs the whole frame path of every frame it is
 * given (shared/src/model/frame-path.ts): decode (libjpeg-turbo, or sharp for what it does not take),
 * input tensor, run, output decoding, boxes. So a frame crosses threads once (compressed bytes in, a few
 * detections out) and the gateway's event loop stays free for sockets and pings. onnxruntime-node runs a
 * model synchronously on the calling thread, which is why it lives here at all.
 *
 * Models come and go while the gateway runs (a folder added or replaced): a model is opened beside the
 * one it replaces, frames from then on run on the new one, and the old sessions are released only once
 * the frame running on them, if any, has finished.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { runFrame, runFrames, warmUpFramePath, type FramePath } from '@sightline/shared/model';
import { ProtocolError } from '@sightline/shared/validation';
import type { ModelSpec } from '../models/manifest.ts';
import { createFrameDecoder, type FrameSource } from '../decode/frame-decoder.ts';
import type { WorkerReply, WorkerRequest, WorkerSetup } from './inference-messages.ts';
import { TurboJpegDecoder } from '../decode/jpeg-turbo.ts';
import { framePathOf, openOnnxRunner, type OnnxRunner } from './local-frame-path.ts';
import { remoteRunner } from '../engines/remote-runner.ts';

const setup = workerData as WorkerSetup;
const jpeg = setup.turbo ? TurboJpegDecoder.open(setup.maxPixels) : undefined;
const decode = createFrameDecoder({ maxPixels: setup.maxPixels, jpeg });

interface OpenModel {
  /** By thread count. This worker runs one frame (or batch) at a time, so each path reuses one input buffer. */
  paths: Map<number, FramePath<FrameSource>>;
  runners: OnnxRunner[];
  /** The graph takes several frames at once. */
  batchable: boolean;
}

const models = new Map<string, OpenModel>();
/** The frame running now, if any: replaced sessions wait for it before they are released. */
let running: Promise<unknown> = Promise.resolve();

async function open(spec: ModelSpec): Promise<OpenModel> {
  const opened: OpenModel = { paths: new Map(), runners: [], batchable: false };
  if (spec.engine) {
    // Served by a remote engine: no session here, and no warm-up run (the engine may not be up yet; the
    // gateway tells clients so until it is, engine-monitor.ts).
    const path = framePathOf(spec, decode, remoteRunner(spec.engine, setup.engineTimeoutMs));
    for (const threads of setup.threadCounts) opened.paths.set(threads, path);
    return opened;
  }
  try {
    for (const threads of setup.threadCounts) {
      const runner = await openOnnxRunner(spec, threads);
      opened.runners.push(runner);
      opened.batchable = runner.batchable;
      const path = framePathOf(spec, decode, runner.run);
      await warmUpFramePath(path);
      opened.paths.set(threads, path);
    }
    return opened;
  } catch (error) {
    await release(opened);
    throw error;
  }
}

async function release(model: OpenModel | undefined): Promise<void> {
  if (!model) return;
  await running.catch(() => undefined);
  for (const runner of model.runners) await runner.release().catch(() => undefined);
}

async function load({ requestId, spec }: Extract<WorkerRequest, { type: 'load' }>): Promise<void> {
  try {
    const opened = await open(spec);
    const previous = models.get(spec.manifest.name);
    models.set(spec.manifest.name, opened);
    reply({ type: 'loaded', requestId, batchable: opened.batchable });
    await release(previous);
  } catch (error) {
    reply({ type: 'load_failed', requestId, message: error instanceof Error ? error.message : String(error) });
  }
}

async function unload({ requestId, model }: Extract<WorkerRequest, { type: 'unload' }>): Promise<void> {
  const previous = models.get(model);
  models.delete(model);
  await release(previous);
  reply({ type: 'unloaded', requestId });
}

async function run(request: Extract<WorkerRequest, { type: 'run' }>): Promise<void> {
  const { frames } = request;
  const path = models.get(request.model)?.paths.get(request.threads);
  if (!path) {
    const message = `model "${request.model}" is no longer served here`;
    for (const { jobId } of frames) reply({ type: 'failed', jobId, code: 'unknown_model', message });
    return;
  }
  const work =
    frames.length === 1
      ? runFrame(path, frames[0]!.frame, frames[0]!.threshold).then(
          (result) => [result],
          (error: unknown) => [error instanceof Error ? error : new Error(String(error))],
        )
      : runFrames(path, frames).catch((error: unknown) => frames.map(() => (error instanceof Error ? error : new Error(String(error)))));
  running = work;
  const results = await work;
  frames.forEach(({ jobId }, i) => {
    const result = results[i]!;
    if (!(result instanceof Error)) {
      reply({ type: 'done', jobId, result });
      return;
    }
    reply({
      type: 'failed',
      jobId,
      code: result instanceof ProtocolError ? result.code : 'internal',
      message: result.message,
      ...(result instanceof ProtocolError && result.retryAfterMs !== undefined ? { retryAfterMs: result.retryAfterMs } : {}),
    });
  });
}

async function stop(): Promise<void> {
  for (const model of models.values()) await release(model);
  models.clear();
  jpeg?.close();
  // Nothing left on this thread's event loop: it ends by itself, cleanly, instead of being torn down.
  parentPort!.close();
}

function reply(message: WorkerReply): void {
  parentPort!.postMessage(message);
}

parentPort!.on('message', (request: WorkerRequest) => {
  if (request.type === 'run') void run(request);
  else if (request.type === 'load') void load(request);
  else if (request.type === 'unload') void unload(request);
  else void stop();
});

reply({ type: 'ready', turbo: jpeg !== undefined });
