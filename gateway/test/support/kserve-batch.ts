/**
 * Several frames in one KServe v2 request, for the tests that drive a real Triton with batches: each
 * input's frames concatenated along dim 0 (each frame's own dim 0, usually 1), the outputs split back per
 * frame, in order. Built on the client's `inferTensors` and the codec's tensors; the gateway itself sends
 * one frame per request, so this lives with the tests.
 */
import type { InputTensor, OutputTensor } from '@sightline/shared/model';
import { KserveError, type KserveClient } from '../../src/engines/kserve-client.ts';
import {
  elementCount,
  fromInputTensor,
  isByteStrings,
  toOutputTensor,
  type KserveTensor,
  type NumericArray,
} from '../../src/engines/kserve-tensors.ts';

type Frame = Readonly<Record<string, InputTensor>>;

export async function inferBatch(client: KserveClient, model: string, frames: readonly Frame[]): Promise<Record<string, OutputTensor>[]> {
  const { inputs, framesDim0 } = batchInputs(frames);
  const response = await client.inferTensors(model, inputs);
  return splitOutputs(response.outputs, framesDim0);
}

/**
 * Frames' inputs -> one request's. Every frame must name the same inputs, with the same dtype and the same
 * dims after the first.
 */
function batchInputs(frames: readonly Frame[]): { inputs: KserveTensor[]; framesDim0: number[] } {
  const first = frames[0];
  if (!first) throw new KserveError('usage', 'a batch needs at least one frame');
  const names = Object.keys(first);
  if (names.length === 0) throw new KserveError('usage', 'a frame needs at least one input');
  const framesDim0 = frames.map((frame, f) => {
    for (const name of names) if (!frame[name]) throw new KserveError('usage', `frame ${f} has no input ${name}`);
    if (Object.keys(frame).length !== names.length) throw new KserveError('usage', `frame ${f} names other inputs than frame 0`);
    const dims = frame[names[0]!]!.dims;
    if (dims.length === 0) throw new KserveError('usage', `frame ${f}: input ${names[0]} has no batch dimension`);
    return dims[0]!;
  });
  const inputs = names.map((name): KserveTensor => {
    const reference = first[name]!;
    const parts = frames.map((frame, f) => {
      const tensor = frame[name]!;
      const sameShape = tensor.dims.length === reference.dims.length && tensor.dims.every((d, i) => i === 0 || d === reference.dims[i]);
      if (tensor.dtype !== reference.dtype || !sameShape) {
        throw new KserveError(
          'usage',
          `frame ${f}: input ${name} is ${tensor.dtype} ${JSON.stringify(tensor.dims)}, frame 0's ${reference.dtype} ${JSON.stringify(reference.dims)}`,
        );
      }
      if (tensor.dims[0] !== framesDim0[f]) throw new KserveError('usage', `frame ${f}: its inputs disagree on the batch dimension`);
      return tensor.data;
    });
    const dims = [framesDim0.reduce((a, b) => a + b, 0), ...reference.dims.slice(1)];
    const data = reference.dtype === 'float32' ? new Float32Array(elementCount(dims)) : new Uint8Array(elementCount(dims));
    let offset = 0;
    for (const part of parts) {
      data.set(part, offset);
      offset += part.length;
    }
    return fromInputTensor(name, { dtype: reference.dtype, dims, data });
  });
  return { inputs, framesDim0 };
}

/** A batch's outputs -> each frame's, as views along dim 0. */
function splitOutputs(outputs: readonly KserveTensor[], framesDim0: readonly number[]): Record<string, OutputTensor>[] {
  const total = framesDim0.reduce((a, b) => a + b, 0);
  const perFrame: Record<string, OutputTensor>[] = framesDim0.map(() => ({}));
  for (const output of outputs) {
    if (output.shape[0] !== total) {
      throw new KserveError('protocol', `output ${output.name} has shape ${JSON.stringify(output.shape)}, not ${total} frames along dim 0`);
    }
    const rowElements = elementCount(output.shape.slice(1));
    let row = 0;
    framesDim0.forEach((rows, f) => {
      const from = row * rowElements;
      const to = (row + rows) * rowElements;
      const data = isByteStrings(output.data) ? output.data.slice(from, to) : (output.data as NumericArray).subarray(from, to);
      perFrame[f]![output.name] = toOutputTensor({ ...output, shape: [rows, ...output.shape.slice(1)], data });
      row += rows;
    });
  }
  return perFrame;
}
