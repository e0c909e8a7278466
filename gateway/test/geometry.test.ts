import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { decodeImage, letterboxPlacement, resampledAfterDecode } from '../src/pipeline/decode-image.ts';
import { mapBoxToImage } from '../src/pipeline/map-boxes.ts';
import { iou, nonMaxSuppression } from '../src/pipeline/nms.ts';
import { TensorBufferPool } from '../src/pipeline/tensor-buffers.ts';
import { buildInputTensor } from '../src/pipeline/input-tensor.ts';
import { photo } from './support/images.ts';

describe('letterbox placement and box mapping', () => {
  const target = { width: 256, height: 256, resize: 'letterbox' as const };

  it('centres a landscape image with bars above and below', () => {
    expect(letterboxPlacement(640, 480, target)).toEqual({ offsetX: 0, offsetY: 32, contentWidth: 256, contentHeight: 192 });
    expect(letterboxPlacement(480, 640, target)).toEqual({ offsetX: 32, offsetY: 0, contentWidth: 192, contentHeight: 256 });
  });

  it('maps a box in model input space back to image pixels, undoing the bars', () => {
    const placement = letterboxPlacement(640, 480, target);
    // The whole content area is the whole image.
    const whole = mapBoxToImage([0, 32 / 256, 1, 224 / 256], target, placement, { width: 640, height: 480 });
    expect(whole).toEqual([0, 0, 640, 480]);
    // A box in the bars is clamped to the image.
    const clamped = mapBoxToImage([0.25, 0, 0.5, 0.1], target, placement, { width: 640, height: 480 });
    expect(clamped).toEqual([160, 0, 320, 0]);
  });

  it('maps stretched input linearly on each axis', () => {
    const stretch = { width: 300, height: 300, resize: 'stretch' as const };
    const placement = letterboxPlacement(640, 480, stretch);
    expect(mapBoxToImage([0.5, 0.5, 1, 1], stretch, placement, { width: 640, height: 480 })).toEqual([320, 240, 640, 480]);
  });

  it('agrees with where the image lands in the tensor, on both decode paths', async () => {
    // White on black bars: the rows with white are exactly the content rows of the placement.
    for (const [width, height, path] of [[320, 240, 'native'], [1600, 1200, 'libvips']] as const) {
      const white = await sharp({ create: { width, height, channels: 3, background: '#fff' } }).jpeg().toBuffer();
      const decoded = await decodeImage(white, target, 1e8);
      expect(decoded.rgb.width, path).toBe(path === 'native' ? width : 256);
      const tensor = buildInputTensor(decoded.rgb, { ...target, layout: 'NHWC', dtype: 'float32', range: [0, 1] }, decoded.placement);
      const rowIsWhite = (y: number) => tensor.data[(y * 256 + 128) * 3]! > 0.8;
      const whiteRows = Array.from({ length: 256 }, (_, y) => y).filter(rowIsWhite);
      expect(whiteRows[0], path).toBe(decoded.placement.offsetY);
      expect(whiteRows.length, path).toBe(decoded.placement.contentHeight);
      expect(tensor.data[0], `${path}: bars are black`).toBe(0);
    }
  });

  it('reports the size the user sees for EXIF-rotated images, in every format, on both decode paths', async () => {
    for (const [width, height, format] of [[40, 20, 'jpeg'], [2000, 1000, 'jpeg'], [40, 20, 'webp'], [2000, 1000, 'webp'], [2000, 1000, 'png']] as const) {
      const rotated = await sharp({ create: { width, height, channels: 3, background: '#888' } })
        .toFormat(format)
        .withMetadata({ orientation: 6 })
        .toBuffer();
      const decoded = await decodeImage(rotated, { width: 30, height: 30, resize: 'stretch' }, 1e7);
      expect([decoded.width, decoded.height], `${format} ${width}x${height}`).toEqual([height, width]);
    }
  });
});

describe('decode path', () => {
  const header = (width: number, height: number) => ({ format: 'jpeg' as const, width, height, oriented: true });
  const stretch = { width: 300, height: 300, resize: 'stretch' as const };

  it('resamples in JavaScript only up to a 1.5x reduction on every axis; libvips does the rest', () => {
    expect(resampledAfterDecode(header(320, 240), stretch)).toBe(true);
    expect(resampledAfterDecode(header(240, 180), stretch)).toBe(true);
    expect(resampledAfterDecode(header(450, 300), stretch)).toBe(true);
    expect(resampledAfterDecode(header(451, 300), stretch)).toBe(false);
    expect(resampledAfterDecode(header(640, 480), stretch)).toBe(false);
    expect(resampledAfterDecode(header(1920, 1080), stretch)).toBe(false);
    // Letterbox shrinks both axes by the same factor, the longer side's.
    const letterbox = { width: 256, height: 256, resize: 'letterbox' as const };
    expect(resampledAfterDecode(header(320, 240), letterbox)).toBe(true);
    expect(resampledAfterDecode(header(400, 200), letterbox)).toBe(false);
  });

  it('resamples small frames as libvips would, within rounding', async () => {
    const spec = { ...stretch, layout: 'NHWC' as const, dtype: 'float32' as const, range: [0, 1] as [number, number] };
    const small = await sharp(photo('horses.jpg')).resize(420, 280, { fit: 'fill' }).jpeg({ quality: 90 }).toBuffer();
    const decoded = await decodeImage(small, stretch, 1e8);
    expect(decoded.rgb.width, 'decoded at its own size').toBe(420);
    const ours = buildInputTensor(decoded.rgb, spec, decoded.placement);
    const byLibvips = await sharp(small).resize(300, 300, { fit: 'fill' }).raw().toBuffer();
    const theirs = buildInputTensor({ data: byLibvips, width: 300, height: 300 }, spec, decoded.placement);
    let sum = 0;
    for (let i = 0; i < ours.data.length; i++) sum += Math.abs(ours.data[i]! - theirs.data[i]!);
    expect(sum / ours.data.length).toBeLessThan(0.03);
  });
});

describe('tensor conversion', () => {
  const full = (width: number, height: number) => ({ offsetX: 0, offsetY: 0, contentWidth: width, contentHeight: height });
  const rgb = (width: number, height: number, values: number[]) => ({ data: new Uint8Array(values), width, height });

  it('scales 0..255 onto the manifest range, NHWC and NCHW', () => {
    const pixels = rgb(2, 1, [0, 255, 51, 102, 153, 204]);
    const spec = { width: 2, height: 1, dtype: 'float32' as const, range: [-1, 1] as [number, number] };
    const nhwc = buildInputTensor(pixels, { ...spec, layout: 'NHWC' }, full(2, 1));
    expect(nhwc.dims).toEqual([1, 1, 2, 3]);
    expect([...nhwc.data].map((v) => +v.toFixed(3))).toEqual([-1, 1, -0.6, -0.2, 0.2, 0.6]);
    const nchw = buildInputTensor(pixels, { ...spec, layout: 'NCHW' }, full(2, 1));
    expect(nchw.dims).toEqual([1, 3, 1, 2]);
    expect([...nchw.data].map((v) => +v.toFixed(3))).toEqual([-1, -0.2, 1, 0.2, -0.6, 0.6]);
  });

  it('passes uint8 values through', () => {
    const t = buildInputTensor(rgb(1, 1, [1, 2, 3]), { width: 1, height: 1, dtype: 'uint8', layout: 'NHWC', range: [0, 1] }, full(1, 1));
    expect([...t.data]).toEqual([1, 2, 3]);
  });

  it('resamples like TensorFlow ResizeBilinear (no half-pixel centres), on each axis', () => {
    const spec = (width: number, height: number) => ({ width, height, layout: 'NHWC' as const, dtype: 'float32' as const, range: [0, 255] as [number, number] });
    const red = (t: { data: ArrayLike<number> }) => Array.from(t.data).filter((_, i) => i % 3 === 0).map((v) => +v.toFixed(3));
    // Halving picks every other pixel: source x = 2i.
    const row = rgb(4, 1, [0, 0, 0, 10, 0, 0, 20, 0, 0, 30, 0, 0]);
    expect(red(buildInputTensor(row, spec(2, 1), full(2, 1)))).toEqual([0, 20]);
    // Enlarging interpolates, and the last source pixel repeats: source x = min(i / 2, 1).
    const pair = rgb(2, 1, [0, 0, 0, 100, 0, 0]);
    expect(red(buildInputTensor(pair, spec(4, 1), full(4, 1)))).toEqual([0, 50, 100, 100]);
    // Vertically the same rule, and both axes combine bilinearly.
    const square = rgb(2, 2, [0, 0, 0, 100, 0, 0, 100, 0, 0, 200, 0, 0]);
    expect(red(buildInputTensor(square, spec(4, 4), full(4, 4)))).toEqual([0, 50, 100, 100, 50, 100, 150, 150, 100, 150, 200, 200, 100, 150, 200, 200]);
  });

  it('fills reused buffers completely, and takes them back only once they are free', () => {
    const buffers = new TensorBufferPool(1);
    const spec = { width: 2, height: 1, layout: 'NHWC' as const, dtype: 'float32' as const, range: [0, 1] as [number, number] };
    const first = buildInputTensor(rgb(2, 1, [255, 255, 255, 255, 255, 255]), spec, full(2, 1), buffers);
    buffers.release(first.data);
    const second = buildInputTensor(rgb(2, 1, [0, 0, 0, 0, 0, 0]), spec, { offsetX: 0, offsetY: 0, contentWidth: 1, contentHeight: 1 }, buffers);
    expect(second.data).toBe(first.data);
    expect([...second.data]).toEqual([0, 0, 0, 0, 0, 0]); // the bar (second pixel) is cleared, not left at 1
    // A buffer transferred to a worker is detached: releasing it must not hand out an empty array later.
    const detached = new Float32Array(6);
    structuredClone(detached.buffer, { transfer: [detached.buffer] });
    buffers.release(second.data);
    buffers.release(detached);
    expect(buffers.acquire(6).length).toBe(6);
    expect(buffers.acquire(6).length).toBe(6);
  });
});

describe('non-maximum suppression', () => {
  const c = (labelIndex: number, score: number, box: [number, number, number, number]) => ({ labelIndex, score, box });

  it('computes intersection over union', () => {
    expect(iou([0, 0, 1, 1], [0, 0, 1, 1])).toBe(1);
    expect(iou([0, 0, 1, 1], [1, 1, 2, 2])).toBe(0);
    expect(iou([0, 0, 2, 1], [1, 0, 3, 1])).toBeCloseTo(1 / 3, 10);
  });

  it('keeps the best of overlapping boxes of one class, best first', () => {
    const kept = nonMaxSuppression([c(0, 0.6, [0, 0, 1, 1]), c(0, 0.9, [0.05, 0, 1, 1]), c(0, 0.7, [2, 2, 3, 3])], 0.5, 10);
    expect(kept.map((k) => k.score)).toEqual([0.9, 0.7]);
  });

  it('suppresses per class, as the model\'s own post-processor did', () => {
    const kept = nonMaxSuppression([c(0, 0.9, [0, 0, 1, 1]), c(1, 0.8, [0, 0, 1, 1])], 0.5, 10);
    expect(kept).toHaveLength(2);
  });

  it('caps the number of detections', () => {
    const many = Array.from({ length: 50 }, (_, i) => c(0, i / 100, [i * 2, 0, i * 2 + 1, 1]));
    expect(nonMaxSuppression(many, 0.5, 5)).toHaveLength(5);
  });
});
