import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { decodeImage, letterboxPlacement } from '../src/pipeline/decode-image.ts';
import { mapBoxToImage } from '../src/pipeline/map-boxes.ts';
import { iou, nonMaxSuppression } from '../src/pipeline/nms.ts';
import { toTensor } from '../src/pipeline/to-tensor.ts';

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

  it('agrees with where sharp actually puts the image', async () => {
    // A white 640x480 image letterboxed to 256x256 on black: white rows must be exactly the content rows.
    const white = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#fff' } }).png().toBuffer();
    const decoded = await decodeImage(white, target, 1e8);
    const rowIsWhite = (y: number) => decoded.pixels[(y * 256 + 128) * 3]! > 200;
    const whiteRows = Array.from({ length: 256 }, (_, y) => y).filter(rowIsWhite);
    expect(whiteRows[0]).toBe(decoded.placement.offsetY);
    expect(whiteRows.length).toBe(decoded.placement.contentHeight);
  });

  it('reports the size the user sees for EXIF-rotated photos', async () => {
    const rotated = await sharp({ create: { width: 40, height: 20, channels: 3, background: '#888' } })
      .jpeg()
      .withMetadata({ orientation: 6 })
      .toBuffer();
    const decoded = await decodeImage(rotated, { width: 30, height: 30, resize: 'stretch' }, 1e6);
    expect([decoded.width, decoded.height]).toEqual([20, 40]);
  });
});

describe('tensor conversion', () => {
  it('scales 0..255 onto the manifest range, NHWC and NCHW', () => {
    const pixels = new Uint8Array([0, 255, 51, 102, 153, 204]); // 2 pixels
    const spec = { width: 2, height: 1, dtype: 'float32' as const, range: [-1, 1] as [number, number] };
    const nhwc = toTensor(pixels, { ...spec, layout: 'NHWC' });
    expect(nhwc.dims).toEqual([1, 1, 2, 3]);
    expect([...nhwc.data].map((v) => +v.toFixed(3))).toEqual([-1, 1, -0.6, -0.2, 0.2, 0.6]);
    const nchw = toTensor(pixels, { ...spec, layout: 'NCHW' });
    expect(nchw.dims).toEqual([1, 3, 1, 2]);
    expect([...nchw.data].map((v) => +v.toFixed(3))).toEqual([-1, -0.2, 1, 0.2, -0.6, 0.6]);
  });

  it('passes uint8 through untouched', () => {
    const pixels = new Uint8Array([1, 2, 3]);
    const t = toTensor(pixels, { width: 1, height: 1, dtype: 'uint8', layout: 'NHWC', range: [0, 1] });
    expect([...t.data]).toEqual([1, 2, 3]);
    expect(t.data.buffer).not.toBe(pixels.buffer);
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
