import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { buildInputTensor, letterboxPlacement } from '@sightline/shared/model';
import { decodeImage } from '../../../src/decode/decode-image.ts';
import { photo } from '../../support/images.ts';

describe('letterbox placement', () => {
  const target = { width: 256, height: 256, resize: 'letterbox' as const };

  it('centres a landscape image with bars above and below', () => {
    expect(letterboxPlacement(640, 480, target)).toEqual({ offsetX: 0, offsetY: 32, contentWidth: 256, contentHeight: 192 });
    expect(letterboxPlacement(480, 640, target)).toEqual({ offsetX: 32, offsetY: 0, contentWidth: 192, contentHeight: 256 });
  });

  it('agrees with where the image lands in the tensor, on both decode paths', async () => {
    // White on black bars: the rows with white are exactly the content rows of the placement.
    for (const [width, height, path] of [
      [320, 240, 'native'],
      [1600, 1200, 'libvips'],
    ] as const) {
      const white = await sharp({ create: { width, height, channels: 3, background: '#fff' } })
        .jpeg()
        .toBuffer();
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
    for (const [width, height, format] of [
      [40, 20, 'jpeg'],
      [2000, 1000, 'jpeg'],
      [40, 20, 'webp'],
      [2000, 1000, 'webp'],
      [2000, 1000, 'png'],
    ] as const) {
      const rotated = await sharp({ create: { width, height, channels: 3, background: '#888' } })
        .toFormat(format)
        .withMetadata({ orientation: 6 })
        .toBuffer();
      const decoded = await decodeImage(rotated, { width: 30, height: 30, resize: 'stretch' }, 1e7);
      expect([decoded.width, decoded.height], `${format} ${width}x${height}`).toEqual([height, width]);
    }
  });
});

describe('native path', () => {
  const stretch = { width: 300, height: 300, resize: 'stretch' as const };

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

describe('thin images', () => {
  it('keeps at least one input pixel across, so a valid 1x600 or 3x2000 JPEG decodes into the letterbox', async () => {
    const target = { width: 256, height: 256, resize: 'letterbox' as const };
    expect(letterboxPlacement(1, 600, target)).toMatchObject({ contentWidth: 1, contentHeight: 256 });
    for (const [width, height] of [
      [1, 600],
      [3, 2000],
      [2000, 3],
    ] as const) {
      const jpeg = await sharp({ create: { width, height, channels: 3, background: '#fff' } })
        .jpeg()
        .toBuffer();
      const decoded = await decodeImage(jpeg, target, 1e8);
      expect([decoded.width, decoded.height], `${width}x${height}`).toEqual([width, height]);
      expect(decoded.rgb.width * decoded.rgb.height, `${width}x${height}`).toBeGreaterThan(0);
    }
  });
});
