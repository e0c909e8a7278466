/**
 * The decode + inference limit of this machine: what a frame costs with nothing of the gateway around it.
 * Each stream is one worker thread doing, per frame, exactly the work the gateway's frame path does and
 * nothing else (bare-pipeline-frame.ts): header read and decode plan, the decoder the plan picks (the
 * gateway's libjpeg-turbo decoder at its DCT scale, or its sharp decoder), the input tensor
 * (@sightline/shared/model), onnxruntime-node with the gateway's session options, output decoding, NMS and
 * boxes mapped to the image. No socket, no codec, no queue, no thread hop. "% of limit" against it shows
 * what the gateway adds; against the bare inference loop (bare-inference.ts) it would also count decoding.
 *
 * Same frames as the clients (the JPEG bytes they send), cycled; `streams` run side by side with `threads`
 * intra-op threads each, as the gateway's workers do when frames queue up.
 */
import { inferenceSessionOptions, type ModelSpec } from '@sightline/gateway';
import { runStreams } from './bare-streams.ts';
import type { PipelineStreamSetup } from './bare-pipeline-worker.ts';

export interface BarePipelineResult {
  /** Frames per second, every stream counted. */
  fps: number;
  /** Mean time of one frame, all stages. */
  meanMs: number;
  runs: number;
  streams: number;
  threads: number;
  model: string;
  /** Mean ms per frame: header + plan + decode, tensor, inference, outputs + NMS + boxes. */
  stages: { decodeMs: number; tensorMs: number; inferenceMs: number; boxesMs: number };
  /** Frames each decoder took, as the gateway's decode plan chose. */
  decoders: { turbo: number; sharp: number };
}

const WORKER_URL = new URL('./bare-pipeline-worker-entry.mjs', import.meta.url);

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
    sessionOptions: inferenceSessionOptions(options.threads),
  }));
  const { fps, meanMs, runs, stageMs, counts } = await runStreams(WORKER_URL, setups, options.seconds);
  return {
    fps,
    meanMs,
    runs,
    streams: options.streams,
    threads: options.threads,
    model: spec.manifest.name,
    stages: {
      decodeMs: stageMs.decodeMs ?? Number.NaN,
      tensorMs: stageMs.tensorMs ?? Number.NaN,
      inferenceMs: stageMs.inferenceMs ?? Number.NaN,
      boxesMs: stageMs.boxesMs ?? Number.NaN,
    },
    decoders: { turbo: counts.turbo ?? 0, sharp: counts.sharp ?? 0 },
  };
}
