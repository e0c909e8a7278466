/**
 * One stream of the decode + inference loop (pipeline.ts): the model opened in this thread exactly as the
 * gateway's inference workers open it (`openFramePath`: its session options, its decoders), and every
 * frame through the one shared frame function the gateway, this loop and the browser all call, until the
 * shared deadline.
 */
import { workerData } from 'node:worker_threads';
import { openFramePath, type ModelSpec, type OpenFramePathOptions } from '@sightline/gateway';
import { runFrame, type FrameStages } from '@sightline/shared/model';
import { serveStream } from './stream-worker.ts';

export interface PipelineStreamSetup extends OpenFramePathOptions {
  spec: ModelSpec;
  frames: Uint8Array[];
  /** Index of this stream's first frame. */
  offset: number;
}

const { spec, frames, offset, ...options } = workerData as PipelineStreamSetup;
const { path, close } = await openFramePath(spec, options);

const stageMs: FrameStages = { decodeMs: 0, preprocessMs: 0, inferenceMs: 0, postprocessMs: 0 };
const decoders: Record<string, number> = {};

async function timed(bytes: Uint8Array): Promise<void> {
  const { stages, decoder } = await runFrame(path, bytes, spec.scoreThreshold);
  for (const key of Object.keys(stageMs) as Array<keyof FrameStages>) stageMs[key] += stages[key];
  decoders[decoder] = (decoders[decoder] ?? 0) + 1;
}

// Warm-up, uncounted: every frame's code path compiled, every buffer allocated.
for (let i = 0; i < Math.max(5, frames.length); i++) await runFrame(path, frames[(offset + i) % frames.length]!, spec.scoreThreshold);
serveStream(
  (run) => timed(frames[(offset + run) % frames.length]!),
  async () => {
    await close();
    return { stageMs, counts: decoders };
  },
);
