/**
 * The memory a decode will hold, read from the image's own bytes: the encoding decides it far more than
 * the pixel count (the factors were measured; docs/RELIABILITY.md). These pin down the model's shape on
 * real encodings made here: a price that falls short would let the frames decoded at once exceed the budget.
 */
import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { decodeCost } from '../../../src/decode/decode-cost.ts';
import { inspectImage } from '../../../src/decode/image-header.ts';

const MIB = 1024 * 1024;
const W = 1200;
const H = 900;
const PIXELS = W * H;
const picture = () => sharp({ create: { width: W, height: H, channels: 3, background: '#468' } });

async function cost(image: Buffer) {
  return decodeCost(image, inspectImage(image, 1e9));
}

/** bytes per pixel above the fixed part, with the margin taken back out. */
const perPixel = (bytes: number) => ((bytes - 4 * MIB) * (1.3 / 1.35)) / PIXELS;

describe('decode cost', () => {
  it('sequential JPEG streams: a quarter byte a pixel', async () => {
    const { bytes, encoding } = await cost(await picture().jpeg().toBuffer());
    expect(encoding).toBe('sequential JPEG');
    expect(perPixel(bytes)).toBeCloseTo(0.25, 5);
  });

  it('progressive JPEG keeps two bytes a sample of every component: 4:2:0 3.25, 4:4:4 6.25 bytes a pixel', async () => {
    const p420 = await cost(await picture().jpeg({ progressive: true, chromaSubsampling: '4:2:0' }).toBuffer());
    const p444 = await cost(await picture().jpeg({ progressive: true, chromaSubsampling: '4:4:4' }).toBuffer());
    expect(p420.encoding).toBe('progressive JPEG, 3 components');
    expect(perPixel(p420.bytes)).toBeCloseTo(3.25, 5);
    expect(perPixel(p444.bytes)).toBeCloseTo(6.25, 5);
  });

  it('PNG: about 2,048 rows of the width at a time, the whole image when interlaced, twice for 16-bit', async () => {
    const rgb = await cost(await picture().png().toBuffer());
    const interlaced = await cost(await picture().png({ progressive: true }).toBuffer());
    const rgba16 = await cost(await picture().ensureAlpha().toColourspace('rgb16').png().toBuffer());
    expect(rgb.encoding).toBe('8-bit PNG, 3 channels');
    expect(perPixel(rgb.bytes)).toBeCloseTo(1.3 * 3, 5); // 900 rows: all of them within 2,048
    expect(interlaced.encoding).toBe('interlaced 8-bit PNG, 3 channels');
    expect(rgba16.encoding).toBe('16-bit PNG, 4 channels');
    expect(perPixel(rgba16.bytes)).toBeCloseTo(1.3 * 8, 5);
    const tall = sharp({ create: { width: 100, height: 10_000, channels: 3, background: '#468' } });
    const streamed = await cost(await tall.png().toBuffer());
    expect((streamed.bytes - 4 * MIB) * (1.3 / 1.35)).toBeCloseTo(1.3 * 3 * 100 * 2048, 0);
  });

  it('WebP: lossy streams, lossless holds 4 bytes a pixel, an alpha plane about one and a quarter', async () => {
    const lossy = await cost(await picture().webp().toBuffer());
    const lossless = await cost(await picture().webp({ lossless: true }).toBuffer());
    const alpha = await cost(await picture().ensureAlpha(0.5).webp().toBuffer());
    expect([lossy.encoding, lossless.encoding, alpha.encoding]).toEqual(['lossy WebP', 'lossless WebP', 'lossy WebP with alpha']);
    expect(perPixel(lossy.bytes)).toBeCloseTo(0.25, 5);
    expect(perPixel(lossless.bytes)).toBeCloseTo(4, 5);
    expect(perPixel(alpha.bytes)).toBeCloseTo(1.25, 5);
  });
});
