/**
 * One stream of the decode + inference loop (bare-pipeline.ts): its own session with the gateway's options,
 * its own libjpeg-turbo decoder, the frames through the gateway's frame path (bare-pipeline-frame.ts) until
 * the shared deadline.
 */
import { parentPort, workerData } from 'node:worker_threads';
import ort, { type InferenceSession } from 'onnxruntime-node';
import * as gateway from '@sightline/gateway';
import { createDecoder, reusedFloatBuffers } from '@sightline/shared/model';
import { framePath } from './bare-pipeline-frame.ts';

export interface PipelineStreamSetup {
  spec: gateway.ModelSpec;
  frames: Uint8Array[];
  /** Index of this stream's first frame. */
  offset: number;
  maxPixels: number;
  sessionOptions: InferenceSession.SessionOptions;
}

const { spec, frames, offset, maxPixels, sessionOptions } = workerData as PipelineStreamSetup;
const port = parentPort!;

const jpeg = gateway.TurboJpegDecoder.open(maxPixels);
const session = await ort.InferenceSession.create(spec.modelPath, sessionOptions);
// The gateway's worker reuses one input buffer per model; so does this loop.
const buffers = reusedFloatBuffers();
const frame = framePath({
  spec,
  maxPixels,
  jpeg,
  session,
  makeTensor: (t) => new ort.Tensor(t.dtype, t.data, t.dims),
  decodeOutputs: createDecoder(spec.manifest),
  buffers,
});

const stageMs = { decodeMs: 0, tensorMs: 0, inferenceMs: 0, boxesMs: 0 };
const decoders = { turbo: 0, sharp: 0 };

async function timed(bytes: Uint8Array): Promise<void> {
  const t = await frame(bytes);
  for (const key of Object.keys(stageMs) as Array<keyof typeof stageMs>) stageMs[key] += t[key];
  decoders[t.decoder]++;
}

// Warm-up, uncounted: kernels picked, buffers allocated, every frame's code path compiled.
for (let i = 0; i < Math.max(5, frames.length); i++) await frame(frames[(offset + i) % frames.length]!);
port.postMessage({ type: 'ready' });
port.once('message', async ({ deadline }: { deadline: number }) => {
  let runs = 0;
  let busyMs = 0;
  while (Date.now() < deadline) {
    const started = performance.now();
    await timed(frames[(offset + runs) % frames.length]!);
    busyMs += performance.now() - started;
    runs++;
  }
  await session.release();
  jpeg?.close();
  port.postMessage({ type: 'done', runs, busyMs, stageMs, counts: decoders });
});
