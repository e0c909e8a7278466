/**
 * The inference-bound limit of this machine: bare onnxruntime-node loops on a model's file with a fixed,
 * image-like tensor and the gateway's session options. No decode, no resize, no I/O. `streams` sessions
 * run side by side, each in its own worker thread with `threads` intra-op threads, as the gateway's
 * workers do when frames queue up (gateway/src/inference/inference-schedule.ts).
 */
import { inferenceSessionOptions, type ModelSpec } from '@sightline/gateway';
import { inputDims } from '@sightline/shared/model';
import { bareLoopFigures, runStreams, type BareLoopFigures } from './streams.ts';

export interface BareInferenceResult extends BareLoopFigures {
  /** The input tensor's type and dimensions. */
  input: string;
}

const WORKER_URL = new URL('./inference-worker-entry.mjs', import.meta.url);

export async function bareInference(
  { manifest, modelPath: path }: ModelSpec,
  options: { threads: number; streams: number; seconds: number },
): Promise<BareInferenceResult> {
  const { input } = manifest;
  const dims = inputDims(input);
  const size = dims.reduce((a, b) => a * b, 1);
  // A deterministic pattern spanning the model's input range (the Python twin, bare_loop.py, uses the same).
  const [lo, hi] = input.range;
  const data = input.dtype === 'uint8' ? new Uint8Array(size) : new Float32Array(size);
  for (let i = 0; i < size; i++) data[i] = input.dtype === 'uint8' ? (i * 37) % 256 : lo + ((hi - lo) * ((i * 37) % 256)) / 255;

  const sessionOptions = inferenceSessionOptions(options.threads);
  const setup = { path, inputName: input.name, dtype: input.dtype, dims, data, sessionOptions };
  const result = await runStreams(
    WORKER_URL,
    Array.from({ length: options.streams }, () => setup),
    options.seconds,
  );
  return { ...bareLoopFigures(result, options, manifest.name), input: `${input.dtype} [${dims.join(', ')}]` };
}
