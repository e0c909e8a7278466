/**
 * What a frame costs to decode, priced from its header and its plan, and the checks made before it may
 * queue. The scheduler keeps the sum of these prices within the decode memory budget, so a price below
 * what the decoder really holds lets the gateway hold more than its budget.
 */
import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { jpegBombHeader, pngBombHeader, readPhoto } from '@sightline/shared/fixtures';
import type { ResizeTarget } from '@sightline/shared/model';
import { ProtocolError } from '@sightline/shared/validation';
import { planDecode, type DecodePlan } from '../../../src/pipeline/decode-plan.ts';
import { admitImage, decodeMemoryBytes, largestDecodeBytes } from '../../../src/pipeline/frame-admission.ts';
import type { ImageHeader } from '../../../src/pipeline/image-header.ts';

const SSD_INPUT: ResizeTarget = { width: 300, height: 300, resize: 'stretch' };
const FACE_INPUT: ResizeTarget = { width: 256, height: 256, resize: 'letterbox' };
const header = (width: number, height: number, format: ImageHeader['format'] = 'jpeg'): ImageHeader => ({
  format,
  width,
  height,
  oriented: format === 'jpeg',
  orientation: 1,
});
const placement = { offsetX: 0, offsetY: 0, contentWidth: 300, contentHeight: 300 };

describe('decodeMemoryBytes', () => {
  it('libjpeg-turbo: priced at its libvips fallback when that holds more (the header cannot tell a CMYK JPEG)', () => {
    const plan: DecodePlan = { kind: 'turbo', scale: 5, placement, fallback: 'sharp-resized' };
    const content = placement.contentWidth * placement.contentHeight * 3;
    expect(decodeMemoryBytes(header(640, 480), plan)).toBe(640 * 480 * 4 + content);
    expect(decodeMemoryBytes(header(641, 479), plan)).toBe(641 * 479 * 4 + content);
    expect(decodeMemoryBytes(header(640, 480), { ...plan, scale: 8, fallback: 'sharp-native' })).toBe(640 * 480 * 7);
  });

  it('libvips at native size: the decoded image in up to 4 bands and its RGB copy', () => {
    expect(decodeMemoryBytes(header(400, 300, 'png'), { kind: 'sharp-native', placement })).toBe(400 * 300 * (4 + 3));
  });

  it('libvips resized: the decoded image in up to 4 bands and the RGB content area', () => {
    const letterboxed = { offsetX: 0, offsetY: 32, contentWidth: 256, contentHeight: 144 };
    expect(decodeMemoryBytes(header(1920, 1080, 'png'), { kind: 'sharp-resized', placement: letterboxed })).toBe(
      1920 * 1080 * 4 + 256 * 144 * 3,
    );
  });

  it('never prices a frame within the pixel limit above largestDecodeBytes, whichever plan and model take it', () => {
    const maxPixels = 4_000_000;
    // Thin frames, which one axis enlarges while the other shrinks, included.
    for (const width of [1, 7, 64, 299, 300, 451, 640, 1000, 1999, 2000, 4000, 40_000]) {
      for (const height of [1, 3, 100, 300, 480, 1000, 2000, 4000]) {
        if (width * height > maxPixels) continue;
        for (const format of ['jpeg', 'png', 'webp'] as const) {
          for (const input of [SSD_INPUT, FACE_INPUT]) {
            for (const turbo of [true, false]) {
              const h = header(width, height, format);
              const price = decodeMemoryBytes(h, planDecode(h, input, { turbo }));
              expect(price, `${width}x${height} ${format} ${input.resize} turbo=${turbo}`).toBeLessThanOrEqual(
                largestDecodeBytes(maxPixels),
              );
            }
          }
        }
      }
    }
  });
});

describe('admitImage', () => {
  it('reads the header of a real photo and prices the plan its decoder will follow', () => {
    const dog = readPhoto('dog.jpg');
    expect(admitImage(dog, SSD_INPUT, { maxPixels: 1e7, turbo: true })).toEqual({
      header: { format: 'jpeg', width: 640, height: 480, oriented: true, orientation: 1 },
      decodeBytes: 640 * 480 * 4 + 300 * 300 * 3,
    });
    expect(admitImage(dog, SSD_INPUT, { maxPixels: 1e7, turbo: false }).decodeBytes).toBe(640 * 480 * 4 + 300 * 300 * 3);
  });

  it('prices a JPEG that libjpeg-turbo will hand to libvips (CMYK) at what libvips will hold, not at the DCT-scaled RGB', async () => {
    // The decoder falls back to sharp for it (frame-decoder.ts); priced as a turbo decode, such frames would let
    // the frames processed at once hold several times the decode memory budget.
    const dog = readPhoto('dog.jpg');
    const cmyk = await sharp(dog).toColourspace('cmyk').jpeg().toBuffer();
    const { decodeBytes } = admitImage(cmyk, SSD_INPUT, { maxPixels: 1e7, turbo: true });
    expect(decodeBytes).toBeGreaterThanOrEqual(640 * 480 * 4 + 300 * 300 * 3);
  });

  it('refuses from the header alone: a bomb is too_large, a frame one pixel over the limit too, bytes of no image bad_image', () => {
    const refused = (image: Uint8Array, maxPixels: number) => {
      try {
        admitImage(image, SSD_INPUT, { maxPixels, turbo: true });
      } catch (error) {
        return error instanceof ProtocolError ? error.code : error;
      }
      return 'admitted';
    };
    expect(refused(pngBombHeader(50_000, 50_000), 40_000_000)).toBe('too_large');
    expect(refused(jpegBombHeader(8000, 5001), 40_000_000)).toBe('too_large');
    expect(refused(jpegBombHeader(8000, 5000), 40_000_000)).toBe('admitted');
    expect(refused(readPhoto('dog.jpg'), 640 * 480 - 1)).toBe('too_large');
    expect(refused(Buffer.from('GIF89a'), 40_000_000)).toBe('bad_image');
  });
});
