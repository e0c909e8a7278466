/** RGB pixels -> the model's input tensor (layout, dtype and value range from its manifest). */
import type { TensorPayload } from './inference-messages.ts';

export interface TensorSpec {
  width: number;
  height: number;
  layout: 'NHWC' | 'NCHW';
  dtype: 'float32' | 'uint8';
  range: [number, number];
}

export function toTensor(pixels: Uint8Array, spec: TensorSpec): TensorPayload {
  const { width, height, layout, dtype } = spec;
  const dims = layout === 'NHWC' ? [1, height, width, 3] : [1, 3, height, width];
  const size = width * height * 3;
  if (pixels.length !== size) throw new Error(`expected ${size} bytes of RGB, got ${pixels.length}`);

  if (dtype === 'uint8') {
    // Copied, because the tensor's buffer is transferred to the inference worker.
    const data = layout === 'NHWC' ? Uint8Array.from(pixels) : planar(pixels, new Uint8Array(size), (v) => v);
    return { dtype, dims, data };
  }
  const lookup = valueLookup(spec.range);
  const data = new Float32Array(size);
  if (layout === 'NHWC') {
    for (let i = 0; i < size; i++) data[i] = lookup[pixels[i]!]!;
    return { dtype, dims, data };
  }
  return { dtype, dims, data: planar(pixels, data, (v) => lookup[v]!) };
}

const lookups = new Map<string, Float32Array>();

/** The 256 possible input values, mapped once per range instead of once per pixel. */
function valueLookup([low, high]: [number, number]): Float32Array {
  const key = `${low},${high}`;
  let lookup = lookups.get(key);
  if (!lookup) {
    lookup = new Float32Array(256);
    for (let v = 0; v < 256; v++) lookup[v] = low + (v * (high - low)) / 255;
    lookups.set(key, lookup);
  }
  return lookup;
}

function planar<T extends Float32Array | Uint8Array>(pixels: Uint8Array, out: T, convert: (v: number) => number): T {
  const plane = pixels.length / 3;
  for (let p = 0; p < plane; p++) {
    out[p] = convert(pixels[p * 3]!);
    out[plane + p] = convert(pixels[p * 3 + 1]!);
    out[2 * plane + p] = convert(pixels[p * 3 + 2]!);
  }
  return out;
}
