/**
 * The decode + inference limit of this machine: what a frame costs with nothing of the gateway around it.
 * Each stream is one worker thread calling, per frame, the very frame function the gateway's inference
 * workers call (pipeline-worker.ts): header read and decode plan, the decoder the plan picks, the input
 * tensor, onnxruntime-node with the gateway's session options, output decoding, NMS and boxes mapped to
 * the image. No socket, no codec, no queue, no thread hop. "% of limit" against it shows what the gateway
 * adds; against the bare inference loop (inference.ts) it would also count decoding.
 *
 * Same frames as the clients (the JPEG bytes they send), cycled; `streams` run side by side with `threads`
 * intra-op threads each, as the gateway's workers do when frames queue up.
 */
import type { ModelSpec } from '@sightline/gateway';
import type { FrameStages } from '@sightline/shared/model';
import type { PipelineStreamSetup } from './pipeline-worker.ts';
import { bareLoopFigures, runStreams, type BareLoopFigures } from './streams.ts';

export interface BarePipelineResult extends BareLoopFigures {
  /** Mean ms per frame of each stage, under the protocol's names. */
  stages: FrameStages;
  /** Frames each decoder took, as the gateway's decode plan chose. */
  decoders: { turbo: number; sharp: number };
}

const WORKER_URL = new URL('./pipeline-worker-entry.mjs', import.meta.url);

export async function barePipeline(
  spec: ModelSpec,
  frames: readonly Uint8Array[],
  options: { threads: number; streams: number; seconds: number; maxPixels: number },
): Promise<BarePipelineResult> {
  if (frames.length === 0) throw new Error('the decode + inference loop needs frames');
  const setups = Array.from({ length: options.streams }, (_, stream): PipelineStreamSetup => ({
    spec,
    frames: [...frames],
    // Streams start at different frames, as clients do.
    offset: stream,
    maxPixels: options.maxPixels,
    threads: options.threads,
    jpegDecoder: 'turbo',
  }));
  const result = await runStreams(WORKER_URL, setups, options.seconds);
  const { stageMs, counts } = result;
  return {
    ...bareLoopFigures(result, options, spec.manifest.name),
    stages: {
      decodeMs: stageMs.decodeMs ?? Number.NaN,
      preprocessMs: stageMs.preprocessMs ?? Number.NaN,
      inferenceMs: stageMs.inferenceMs ?? Number.NaN,
      postprocessMs: stageMs.postprocessMs ?? Number.NaN,
    },
    decoders: { turbo: counts.turbo ?? 0, sharp: counts.sharp ?? 0 },
  };
}
