/**
 * Decoded RGB -> the model's input tensor (layout, dtype and value range from its manifest), in one pass:
 * bilinear resampling into the placement (stretch, or letterbox with black bars) fused with the value
 * conversion. Sampling is TensorFlow's `ResizeBilinear` without half-pixel centres, the resize both
 * models' original graphs apply to their input. An image already at the size of its place in the
 * input (shrunk on load) is copied through a 256-entry lookup table instead.
 */
import type { Placement, RgbImage } from './decode-image.ts';
import type { TensorPayload } from './inference-messages.ts';
import type { TensorBufferPool } from './tensor-buffers.ts';

export interface TensorSpec {
  width: number;
  height: number;
  layout: 'NHWC' | 'NCHW';
  dtype: 'float32' | 'uint8';
  range: [number, number];
}

export function toTensor(image: RgbImage, spec: TensorSpec, placement: Placement, buffers?: TensorBufferPool): TensorPayload {
  const { width, height, layout, dtype } = spec;
  const dims = layout === 'NHWC' ? [1, height, width, 3] : [1, 3, height, width];
  const size = width * height * 3;
  const interleaved = buffers?.acquire(size) ?? new Float32Array(size);
  const alreadyAtSize = image.width === placement.contentWidth && image.height === placement.contentHeight;
  if (alreadyAtSize) copyInto(image, width, spec.range, placement, interleaved);
  else resampleInto(image, width, spec.range, placement, interleaved);
  if (dtype === 'float32' && layout === 'NHWC') return { dtype, dims, data: interleaved };

  // Layouts no shipped model uses are converted from the fast path's output rather than given loops of their own.
  const [low, high] = spec.range;
  const plane = width * height;
  const data = dtype === 'uint8' ? new Uint8Array(size) : new Float32Array(size);
  for (let i = 0; i < size; i++) {
    const value = dtype === 'uint8' ? Math.round(((interleaved[i]! - low) * 255) / (high - low)) : interleaved[i]!;
    data[layout === 'NHWC' ? i : (i % 3) * plane + Math.floor(i / 3)] = value;
  }
  buffers?.release(interleaved);
  return { dtype, dims, data };
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

function copyInto(image: RgbImage, width: number, range: [number, number], placement: Placement, out: Float32Array): void {
  const lookup = valueLookup(range);
  fillBars(placement, range[0], out);
  const rowValues = image.width * 3;
  for (let y = 0; y < image.height; y++) {
    const from = y * rowValues;
    const to = ((y + placement.offsetY) * width + placement.offsetX) * 3;
    for (let i = 0; i < rowValues; i++) out[to + i] = lookup[image.data[from + i]!]!;
  }
}

/** Letterbox bars are black; a reused buffer still holds the last frame there. */
function fillBars(placement: Placement, black: number, out: Float32Array): void {
  if (placement.contentWidth * placement.contentHeight * 3 < out.length) out.fill(black);
}

/** Per output coordinate along one axis: the two source indices and the weight of the second. */
function axisTaps(outSize: number, srcSize: number) {
  const lower = new Int32Array(outSize);
  const upper = new Int32Array(outSize);
  const weight = new Float32Array(outSize);
  const scale = srcSize / outSize;
  for (let i = 0; i < outSize; i++) {
    const src = Math.min(i * scale, srcSize - 1);
    lower[i] = Math.floor(src);
    upper[i] = Math.min(lower[i]! + 1, srcSize - 1);
    weight[i] = src - lower[i]!;
  }
  return { lower, upper, weight };
}

/**
 * The hot loop: ~90k output pixels per frame. Kept monomorphic (typed arrays only, no callbacks) and
 * with the value scale folded into the vertical weights, so V8 compiles it to straight arithmetic.
 */
function resampleInto(image: RgbImage, width: number, [low, high]: [number, number], placement: Placement, out: Float32Array): void {
  fillBars(placement, low, out);
  const scale = (high - low) / 255;
  const xs = axisTaps(placement.contentWidth, image.width);
  const ys = axisTaps(placement.contentHeight, image.height);
  const left = new Int32Array(placement.contentWidth);
  const right = new Int32Array(placement.contentWidth);
  for (let x = 0; x < left.length; x++) {
    left[x] = xs.lower[x]! * 3;
    right[x] = xs.upper[x]! * 3;
  }
  const xWeight = xs.weight;
  const src = image.data;
  const rowBytes = image.width * 3;
  for (let cy = 0; cy < placement.contentHeight; cy++) {
    const top = ys.lower[cy]! * rowBytes;
    const bottom = ys.upper[cy]! * rowBytes;
    const wy = ys.weight[cy]!;
    const topScale = (1 - wy) * scale;
    const bottomScale = wy * scale;
    let o = ((cy + placement.offsetY) * width + placement.offsetX) * 3;
    for (let cx = 0; cx < placement.contentWidth; cx++) {
      const wx = xWeight[cx]!;
      const wl = 1 - wx;
      const tl = top + left[cx]!;
      const tr = top + right[cx]!;
      const bl = bottom + left[cx]!;
      const br = bottom + right[cx]!;
      out[o] = (src[tl]! * wl + src[tr]! * wx) * topScale + (src[bl]! * wl + src[br]! * wx) * bottomScale + low;
      out[o + 1] = (src[tl + 1]! * wl + src[tr + 1]! * wx) * topScale + (src[bl + 1]! * wl + src[br + 1]! * wx) * bottomScale + low;
      out[o + 2] = (src[tl + 2]! * wl + src[tr + 2]! * wx) * topScale + (src[bl + 2]! * wl + src[br + 2]! * wx) * bottomScale + low;
      o += 3;
    }
  }
}
