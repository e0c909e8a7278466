/**
 * One frame through the model, the one implementation every place that runs a model calls: the gateway's
 * inference worker, the benchmark's bare loop and the browser's on-device worker. What differs between them
 * is injected: how encoded bytes become pixels (libjpeg-turbo or libvips in Node, createImageBitmap in the
 * browser) and what runs the graph (onnxruntime-node, onnxruntime-web, a serving engine).
 *
 *   decode -> input tensor -> run -> output decoding -> boxes (NMS, mapped to the image)
 *
 * Each stage is timed under the protocol's own names (StageTimings), so no caller assembles timings.
 * prepareFrame and finishFrame are the halves around the run, for callers that run several frames as one
 * batch; runFrame is both halves around one run.
 */
import type { Detection, StageTimings } from '../protocol.ts';
import { candidatesToDetections, type LabelledModel } from './detections.ts';
import { buildInputTensor, inputDims, type FloatBuffers, type InputTensor, type RgbImage } from './input-tensor.ts';
import type { Placement } from './letterbox.ts';
import type { Manifest } from './manifest.ts';
import type { OutputDecoder, OutputTensor } from './output-decoders/types.ts';

/** The stages of one frame's path, as the protocol names them; the transport adds queueMs and serverMs. */
export type FrameStages = Pick<StageTimings, 'decodeMs' | 'preprocessMs' | 'inferenceMs' | 'postprocessMs'>;

/** Pixels ready for the tensor builder, and where boxes are reported. */
export interface DecodedFrame {
  /** The pixels to sample: at the image's own size, DCT-scaled, or already shrunk to the placement's content size. */
  rgb: RgbImage;
  /** The submitted image's size after EXIF orientation: the space boxes are reported in. */
  width: number;
  height: number;
  /** Where the picture goes in the model input. */
  placement: Placement;
  /** Which decoder produced the pixels (metrics, benchmarks): `turbo`, `sharp`, `browser`. */
  decoder: string;
}

/**
 * A frame as the caller holds it -> pixels for this model's input; throws ProtocolError `bad_image` (or
 * `too_large`) for what it refuses. `F` is encoded bytes for most callers; the gateway's workers take a frame
 * whose header and decode plan were read on receipt, or pixels a video decoder already produced.
 */
export type FrameDecoder<F = Uint8Array> = (frame: F, input: Manifest['input']) => DecodedFrame | Promise<DecodedFrame>;

/** Runs the graph: the model's input tensor by input name -> its outputs by output name. */
export type ModelRunner = (inputs: Record<string, InputTensor>) => Promise<Readonly<Record<string, OutputTensor>>>;

/** Everything one model's frames need, made once per model and place (worker, page). */
export interface FramePath<F = Uint8Array> {
  model: LabelledModel & { manifest: Pick<Manifest, 'input' | 'classIds' | 'iouThreshold' | 'maxDetections'> };
  decode: FrameDecoder<F>;
  run: ModelRunner;
  /** The manifest's output decoder (createDecoder), built once per model. */
  decodeOutputs: OutputDecoder;
  /** Where input tensors are built; a worker that runs one frame at a time reuses one buffer. */
  buffers?: FloatBuffers;
}

export interface FrameResult {
  /** The submitted image's size. */
  width: number;
  height: number;
  detections: Detection[];
  stages: FrameStages;
  decoder: string;
}

/** A frame decoded and turned into its input tensor, waiting for its run. */
export interface PreparedFrame {
  decoded: DecodedFrame;
  tensor: InputTensor;
  decodeMs: number;
  preprocessMs: number;
}

export async function prepareFrame<F>(path: FramePath<F>, frame: F): Promise<PreparedFrame> {
  const t0 = performance.now();
  const decoded = await path.decode(frame, path.model.manifest.input);
  const t1 = performance.now();
  const tensor = buildInputTensor(decoded.rgb, path.model.manifest.input, decoded.placement, path.buffers);
  return { decoded, tensor, decodeMs: t1 - t0, preprocessMs: performance.now() - t1 };
}

/** Raw outputs of a prepared frame's run -> its detections, in the submitted image's pixels. */
export function finishFrame<F>(
  path: FramePath<F>,
  prepared: PreparedFrame,
  outputs: Readonly<Record<string, OutputTensor>>,
  threshold: number,
  inferenceMs: number,
): FrameResult {
  const t0 = performance.now();
  const { decoded } = prepared;
  const candidates = path.decodeOutputs(outputs, threshold);
  const detections = candidatesToDetections(candidates, path.model, decoded.placement, decoded);
  return {
    width: decoded.width,
    height: decoded.height,
    detections,
    decoder: decoded.decoder,
    stages: { decodeMs: prepared.decodeMs, preprocessMs: prepared.preprocessMs, inferenceMs, postprocessMs: performance.now() - t0 },
  };
}

export async function runFrame<F>(path: FramePath<F>, frame: F, threshold: number): Promise<FrameResult> {
  const prepared = await prepareFrame(path, frame);
  const t0 = performance.now();
  const outputs = await path.run({ [path.model.manifest.input.name]: prepared.tensor });
  return finishFrame(path, prepared, outputs, threshold, performance.now() - t0);
}

/** One frame of a batch: the frame as the path's decoder takes it, and its score threshold. */
export interface BatchFrame<F = Uint8Array> {
  frame: F;
  threshold: number;
}

/**
 * Several frames through one run of a model whose input has a batch dimension: each decoded and turned
 * into its tensor, the tensors stacked along dim 0, one run, the outputs split back along dim 0 and decoded
 * per frame. A frame that cannot be decoded fails alone (its slot holds the error); the run's time is every
 * frame's inferenceMs, since each waited for all of it.
 */
export async function runFrames<F>(path: FramePath<F>, frames: readonly BatchFrame<F>[]): Promise<Array<FrameResult | Error>> {
  const { input } = path.model.manifest;
  const results: Array<FrameResult | Error> = new Array(frames.length);
  const prepared: Array<{ index: number; frame: PreparedFrame }> = [];
  let batch: Float32Array | Uint8Array | undefined;
  let stride = 0;
  for (const [index, { frame: input }] of frames.entries()) {
    try {
      const frame = await prepareFrame(path, input);
      // The tensor's buffer is reused by the next frame's: its values go into the batch now.
      stride = frame.tensor.data.length;
      batch ??= frame.tensor.dtype === 'uint8' ? new Uint8Array(stride * frames.length) : new Float32Array(stride * frames.length);
      batch.set(frame.tensor.data, prepared.length * stride);
      prepared.push({ index, frame });
    } catch (error) {
      results[index] = error instanceof Error ? error : new Error(String(error));
    }
  }
  if (prepared.length === 0 || !batch) return results;
  const [, ...rest] = prepared[0]!.frame.tensor.dims;
  const n = prepared.length;
  const stacked: InputTensor = { dtype: prepared[0]!.frame.tensor.dtype, dims: [n, ...rest], data: batch.subarray(0, n * stride) };
  const t0 = performance.now();
  const outputs = await path.run({ [input.name]: stacked });
  const inferenceMs = performance.now() - t0;
  for (const [row, { index, frame }] of prepared.entries()) {
    try {
      results[index] = finishFrame(path, frame, rowOf(outputs, row, n), frames[index]!.threshold, inferenceMs);
    } catch (error) {
      results[index] = error instanceof Error ? error : new Error(String(error));
    }
  }
  return results;
}

/** Row `row` of `n` of every output, along dim 0, as views (the decoders read a batch of one). */
function rowOf(outputs: Readonly<Record<string, OutputTensor>>, row: number, n: number): Record<string, OutputTensor> {
  const out: Record<string, OutputTensor> = {};
  for (const [name, tensor] of Object.entries(outputs)) {
    const data = tensor.data as { length: number; subarray(from: number, to: number): unknown };
    const per = data.length / n;
    out[name] = { type: tensor.type, dims: [1, ...tensor.dims.slice(1)], data: data.subarray(row * per, (row + 1) * per) };
  }
  return out;
}

/**
 * Runs a blank input through the model and its output decoder: the first runs pick kernels and allocate
 * buffers, and the decoder's code gets compiled, before the first real frame pays for it.
 */
export async function warmUpFramePath(path: Pick<FramePath<unknown>, 'model' | 'run' | 'decodeOutputs'>, runs = 2): Promise<void> {
  const { input } = path.model.manifest;
  const dims = inputDims(input);
  const size = dims.reduce((a, b) => a * b, 1);
  for (let i = 0; i < runs; i++) {
    const data = input.dtype === 'uint8' ? new Uint8Array(size) : new Float32Array(size);
    path.decodeOutputs(await path.run({ [input.name]: { dtype: input.dtype, dims, data } }), 1);
  }
}
