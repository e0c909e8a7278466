/**
 * Decoded RGB -> the model's input tensor (layout, dtype and value range from its manifest), in one pass:
 * bilinear resampling into the placement (stretch, or letterbox with bars of the manifest's `pad` value) fused with the value
 * conversion. Sampling is TensorFlow's `ResizeBilinear` without half-pixel centres, the resize both
 * models' original graphs apply to their input. An image already at the size of its place in the
 * input (shrunk on load) is copied through a 256-entry lookup table instead.
 */
import type { Placement } from './letterbox.ts';

/** Interleaved 8-bit RGB. */
export interface RgbImage {
  data: Uint8Array;
  width: number;
  height: number;
}

/** A model input tensor: element type, shape and values. */
export interface InputTensor {
  dtype: 'float32' | 'uint8';
  dims: number[];
  data: Float32Array | Uint8Array;
}

/** Where float buffers come from and go back to (the gateway reuses them; a plain caller need not). */
export interface FloatBuffers {
  acquire(length: number): Float32Array;
  release(buffer: Float32Array | Uint8Array): void;
}

/**
 * One float buffer, reused for every tensor of the same size: for a thread that builds one tensor at a
 * time and hands it to its own session (an inference worker), instead of megabytes allocated per frame.
 */
export function reusedFloatBuffers(): FloatBuffers {
  let buffer = new Float32Array(0);
  return {
    acquire: (length) => (buffer.length === length ? buffer : (buffer = new Float32Array(length))),
    release: () => undefined,
  };
}

export interface TensorSpec {
  width: number;
  height: number;
  layout: 'NHWC' | 'NCHW';
  dtype: 'float32' | 'uint8';
  range: [number, number];
  /** Letterbox bar pixel value, 0..255 before `range` (manifest `input.pad`); 0, black, when absent. */
  pad?: number;
}

/** The model input's shape: one image, in the manifest's layout. */
export function inputDims({ width, height, layout }: Pick<TensorSpec, 'width' | 'height' | 'layout'>): number[] {
  return layout === 'NHWC' ? [1, height, width, 3] : [1, 3, height, width];
}

export function buildInputTensor(image: RgbImage, spec: TensorSpec, placement: Placement, buffers?: FloatBuffers): InputTensor {
  const { width, height, layout, dtype } = spec;
  const dims = inputDims(spec);
  const size = width * height * 3;
  const interleaved = buffers?.acquire(size) ?? new Float32Array(size);
  fillBars(placement, barValue(spec), interleaved);
  const alreadyAtSize = image.width === placement.contentWidth && image.height === placement.contentHeight;
  if (alreadyAtSize) copyInto(image, width, spec.range, placement, interleaved);
  else if (shrinkInto(image, placement) > MAX_BILINEAR_SHRINK) areaResampleInto(image, width, spec.range, placement, interleaved);
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

/**
 * Beyond this reduction bilinear sampling aliases (it reads 2 of every 3+ source pixels, skipping the
 * rest), so a larger image is averaged over each output pixel's footprint instead. Neither shipped caller
 * sends one today: the gateway hands such frames to libvips' Lanczos (gateway/src/decode/decode-plan.ts
 * says why) and the browser draws them at their content size first (web/src/inference/pixels.ts); the
 * area path keeps any other caller from aliasing.
 */
export const MAX_BILINEAR_SHRINK = 1.5;

/** How much an image of `size` shrinks into its place in the input, on the axis that shrinks most. */
export function shrinkInto(size: { width: number; height: number }, placement: Placement): number {
  return Math.max(size.width / placement.contentWidth, size.height / placement.contentHeight);
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
  const rowValues = image.width * 3;
  for (let y = 0; y < image.height; y++) {
    const from = y * rowValues;
    const to = ((y + placement.offsetY) * width + placement.offsetX) * 3;
    for (let i = 0; i < rowValues; i++) out[to + i] = lookup[image.data[from + i]!]!;
  }
}

/** The bars' tensor value: the `pad` pixel value mapped onto the range like any pixel. */
function barValue({ range: [low, high], pad = 0 }: Pick<TensorSpec, 'range' | 'pad'>): number {
  return low + (pad * (high - low)) / 255;
}

/**
 * Letterbox bars get the pad value; a reused buffer still holds the last frame there. The whole buffer is
 * filled, the picture then written over its part: one fill is faster than one per bar row.
 */
function fillBars(placement: Placement, bar: number, out: Float32Array): void {
  if (placement.contentWidth * placement.contentHeight * 3 < out.length) out.fill(bar);
}

interface AxisTaps {
  /** Per output coordinate: the two source indices (times `stride`) and the weight of the second. */
  lower: Int32Array;
  upper: Int32Array;
  weight: Float32Array;
}

const tapsCache = new Map<string, AxisTaps>();
/** Frame sizes vary per client, not per frame; the cache is cleared rather than grown without bound. */
const TAPS_CACHE_LIMIT = 64;

function axisTaps(outSize: number, srcSize: number, stride: number): AxisTaps {
  const key = `${outSize}/${srcSize}/${stride}`;
  let taps = tapsCache.get(key);
  if (taps) return taps;
  taps = { lower: new Int32Array(outSize), upper: new Int32Array(outSize), weight: new Float32Array(outSize) };
  const scale = srcSize / outSize;
  for (let i = 0; i < outSize; i++) {
    const src = Math.min(i * scale, srcSize - 1);
    const lower = Math.floor(src);
    taps.lower[i] = lower * stride;
    taps.upper[i] = Math.min(lower + 1, srcSize - 1) * stride;
    taps.weight[i] = src - lower;
  }
  if (tapsCache.size >= TAPS_CACHE_LIMIT) tapsCache.clear();
  tapsCache.set(key, taps);
  return taps;
}

/**
 * The hot loop: ~90k output pixels per frame. Kept monomorphic (typed arrays only, no callbacks) and
 * with the value scale folded into the vertical weights, so V8 compiles it to straight arithmetic.
 */
function resampleInto(image: RgbImage, width: number, [low, high]: [number, number], placement: Placement, out: Float32Array): void {
  const scale = (high - low) / 255;
  const rowBytes = image.width * 3;
  // Source offsets in bytes: columns step by a pixel (3), rows by a row.
  const { lower: left, upper: right, weight: xWeight } = axisTaps(placement.contentWidth, image.width, 3);
  const ys = axisTaps(placement.contentHeight, image.height, rowBytes);
  const src = image.data;
  for (let cy = 0; cy < placement.contentHeight; cy++) {
    const top = ys.lower[cy]!;
    const bottom = ys.upper[cy]!;
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

interface AreaTaps {
  /** Per output coordinate: first source index (times `stride`) and how many sources it averages. */
  first: Int32Array;
  count: Int32Array;
  /** `maxTaps` weights per output coordinate, summing to 1: each source's overlap with the footprint. */
  weights: Float32Array;
  maxTaps: number;
}

const areaCache = new Map<string, AreaTaps>();

function areaTaps(outSize: number, srcSize: number, stride: number): AreaTaps {
  const key = `${outSize}/${srcSize}/${stride}`;
  let taps = areaCache.get(key);
  if (taps) return taps;
  const scale = srcSize / outSize;
  // At least 3: areaResampleInto reads three weights per output unrolled, and an axis that does not shrink
  // (scale <= 1, the other axis shrinking under `stretch`) would otherwise read its neighbour's weights.
  const maxTaps = Math.max(3, Math.ceil(scale) + 1);
  taps = { first: new Int32Array(outSize), count: new Int32Array(outSize), weights: new Float32Array(outSize * maxTaps), maxTaps };
  for (let i = 0; i < outSize; i++) {
    // Enlarging (scale < 1) degenerates to nearest: only used when the other axis shrinks a lot.
    const from = i * scale;
    const to = Math.max(from + 1e-9, Math.min(srcSize, (i + 1) * scale));
    const first = Math.min(srcSize - 1, Math.floor(from));
    const last = Math.min(srcSize - 1, Math.ceil(to) - 1);
    taps.first[i] = first * stride;
    taps.count[i] = last - first + 1;
    for (let j = first; j <= last; j++) {
      const overlap = Math.min(to, j + 1) - Math.max(from, j);
      taps.weights[i * maxTaps + (j - first)] = overlap / (to - from);
    }
  }
  if (areaCache.size >= TAPS_CACHE_LIMIT) areaCache.clear();
  areaCache.set(key, taps);
  return taps;
}

let areaRow = new Float32Array(0);

/**
 * Area averaging (OpenCV's INTER_AREA, a box filter over each output pixel's footprint), separable: the
 * source rows under an output row are summed into one float row, then the columns of that row. About
 * 2.3 M multiply-adds for 640x480 into 300x300: 1.8 ms here.
 */
function areaResampleInto(image: RgbImage, width: number, [low, high]: [number, number], placement: Placement, out: Float32Array): void {
  const scale = (high - low) / 255;
  const rowValues = image.width * 3;
  // Padded by three pixels: the unrolled sums below read up to two taps past an output's last source,
  // with weight 0 (a finite leftover times 0 is 0; a read past the end would be NaN).
  if (areaRow.length < rowValues + 9) areaRow = new Float32Array(rowValues + 9);
  const row = areaRow;
  const xs = areaTaps(placement.contentWidth, image.width, 3);
  const ys = areaTaps(placement.contentHeight, image.height, rowValues);
  const src = image.data;
  for (let cy = 0; cy < placement.contentHeight; cy++) {
    sumRows(src, ys.first[cy]!, ys.count[cy]!, ys.weights, cy * ys.maxTaps, scale, rowValues, row);
    let o = ((cy + placement.offsetY) * width + placement.offsetX) * 3;
    for (let cx = 0; cx < placement.contentWidth; cx++) {
      const at = xs.first[cx]!;
      const count = xs.count[cx]!;
      const wBase = cx * xs.maxTaps;
      // Two to four source pixels per output at the shrinks this runs for: unrolled, straight arithmetic.
      const w0 = xs.weights[wBase]!;
      const w1 = xs.weights[wBase + 1]!;
      const w2 = xs.weights[wBase + 2]!;
      let r = row[at]! * w0 + row[at + 3]! * w1 + row[at + 6]! * w2;
      let g = row[at + 1]! * w0 + row[at + 4]! * w1 + row[at + 7]! * w2;
      let b = row[at + 2]! * w0 + row[at + 5]! * w1 + row[at + 8]! * w2;
      for (let t = 3; t < count; t++) {
        const w = xs.weights[wBase + t]!;
        const p = at + t * 3;
        r += row[p]! * w;
        g += row[p + 1]! * w;
        b += row[p + 2]! * w;
      }
      out[o] = r + low;
      out[o + 1] = g + low;
      out[o + 2] = b + low;
      o += 3;
    }
  }
}

/**
 * row = sum of `count` source rows from `first`, each times its weight (and the value scale). One pass
 * over the output whatever the count: the usual 2-3 rows are unrolled, so the row is written once
 * instead of cleared and re-read per source row.
 */
function sumRows(
  src: Uint8Array,
  first: number,
  count: number,
  weights: Float32Array,
  at: number,
  scale: number,
  length: number,
  row: Float32Array,
): void {
  const w0 = weights[at]! * scale;
  const w1 = count > 1 ? weights[at + 1]! * scale : 0;
  const w2 = count > 2 ? weights[at + 2]! * scale : 0;
  const r1 = first + length;
  const r2 = first + 2 * length;
  if (count === 1) {
    for (let k = 0; k < length; k++) row[k] = src[first + k]! * w0;
  } else if (count === 2) {
    for (let k = 0; k < length; k++) row[k] = src[first + k]! * w0 + src[r1 + k]! * w1;
  } else {
    for (let k = 0; k < length; k++) row[k] = src[first + k]! * w0 + src[r1 + k]! * w1 + src[r2 + k]! * w2;
    for (let t = 3; t < count; t++) {
      const w = weights[at + t]! * scale;
      const base = first + t * length;
      for (let k = 0; k < length; k++) row[k]! += src[base + k]! * w;
    }
  }
}
