/**
 * A model opened in this thread the way the gateway runs it: an onnxruntime-node session with the gateway's
 * options and a runner around it, the gateway's image decoding, and the model's output decoder, put
 * together as the shared frame path (shared/src/model/frame-path.ts). The inference workers build theirs
 * from these parts; `openFramePath` is the same for a caller that wants one model in its own thread (the
 * benchmark's bare decode + inference loop), so both run the very same code per frame.
 */
import ort from 'onnxruntime-node';
import {
  createDecoder,
  reusedFloatBuffers,
  warmUpFramePath,
  type FrameDecoder,
  type FramePath,
  type InputTensor,
  type ModelRunner,
} from '@sightline/shared/model';
import type { ModelSpec } from '../models/manifest.ts';
import { createBytesDecoder } from '../decode/frame-decoder.ts';
import { TurboJpegDecoder } from '../decode/jpeg-turbo.ts';
import { inferenceSessionOptions } from './session-options.ts';

export interface OnnxRunner {
  run: ModelRunner;
  /** The graph's input takes several frames at once (its dim 0 is symbolic). */
  batchable: boolean;
  release(): Promise<void>;
}

function ortTensor(tensor: InputTensor): ort.Tensor {
  return new ort.Tensor(tensor.dtype, tensor.data, tensor.dims);
}

/** An onnxruntime-node session for `spec` with `threads` intra-op threads, as a ModelRunner. */
export async function openOnnxRunner(spec: ModelSpec, threads: number): Promise<OnnxRunner> {
  const session = await ort.InferenceSession.create(spec.modelPath, inferenceSessionOptions(threads));
  const input = session.inputMetadata[0];
  const dim0 = input?.isTensor ? input.shape[0] : 1;
  const batchable = typeof dim0 !== 'number' || dim0 < 0;
  return {
    batchable,
    run: async (inputs) => {
      const feeds: Record<string, ort.Tensor> = {};
      for (const [name, tensor] of Object.entries(inputs)) feeds[name] = ortTensor(tensor);
      return session.run(feeds);
    },
    release: () => session.release(),
  };
}

/**
 * The frame path of one model over a runner. Its input buffer is reused frame after frame: for a thread
 * that runs one frame at a time, as each inference worker does.
 */
export function framePathOf<F>(spec: ModelSpec, decode: FrameDecoder<F>, run: ModelRunner): FramePath<F> {
  return { model: spec, decode, run, decodeOutputs: createDecoder(spec.manifest), buffers: reusedFloatBuffers() };
}

export interface OpenFramePathOptions {
  threads: number;
  maxPixels: number;
  /** `turbo` (libjpeg-turbo where available, sharp for the rest) or `sharp` for every frame. */
  jpegDecoder: 'turbo' | 'sharp';
}

export interface OpenedFramePath {
  path: FramePath;
  close(): Promise<void>;
}

/** One model ready to take frames in this thread, warmed up: the gateway's frame path with nothing around it. */
export async function openFramePath(spec: ModelSpec, options: OpenFramePathOptions): Promise<OpenedFramePath> {
  const jpeg = options.jpegDecoder === 'turbo' ? TurboJpegDecoder.open(options.maxPixels) : undefined;
  const runner = await openOnnxRunner(spec, options.threads);
  const path = framePathOf(spec, createBytesDecoder({ maxPixels: options.maxPixels, jpeg }), runner.run);
  await warmUpFramePath(path);
  return {
    path,
    close: async () => {
      await runner.release();
      jpeg?.close();
    },
  };
}
