/**
 * The checks made as a frame arrives, before it may queue: the header (format, pixels) and the memory its
 * decode will hold, refused `too_large` past what one frame may hold.
 */
import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { jpegBombHeader, pngBombHeader, readPhoto } from '@sightline/shared/fixtures';
import { ProtocolError } from '@sightline/shared/validation';
import { admitImage } from '../../../src/admission/image-admission.ts';

const MIB = 1024 * 1024;
const limits = (maxPixels = 40_000_000, frameMib = 128) => ({ maxPixels, maxFrameDecodeBytes: frameMib * MIB });

function refused(image: Uint8Array, maxPixels = 40_000_000, frameMib = 128): string {
  try {
    admitImage(image, limits(maxPixels, frameMib));
  } catch (error) {
    if (error instanceof ProtocolError) return `${error.code}: ${error.message}`;
    throw error;
  }
  return 'admitted';
}

describe('admitImage', () => {
  it("reads a real photo's header and prices its decode", () => {
    const { header, decodeBytes } = admitImage(readPhoto('dog.jpg'), limits());
    expect(header).toEqual({ format: 'jpeg', width: 640, height: 480, oriented: true, orientation: 1 });
    expect(decodeBytes).toBeGreaterThan(640 * 480 * 0.25);
    expect(decodeBytes).toBeLessThan(8 * MIB);
  });

  it('refuses from the header alone: a bomb is too_large, a frame one pixel over the limit too, bytes of no image bad_image', () => {
    expect(refused(pngBombHeader(50_000, 50_000))).toMatch(/^too_large: image is 50000x50000/);
    expect(refused(jpegBombHeader(8000, 5001))).toMatch(/^too_large/);
    // Within the limit, a header without image data is no image: refused on receipt, not after a wait.
    expect(refused(jpegBombHeader(8000, 5000))).toMatch(/^bad_image: JPEG ends before its image data/);
    expect(refused(readPhoto('dog.jpg'), 640 * 480 - 1)).toMatch(/^too_large/);
    expect(refused(Buffer.from('GIF89a'))).toMatch(/^bad_image/);
  });

  it('refuses, with the reason, an image whose encoding would hold more than one frame may, though its pixels pass', async () => {
    // 2400 x 2400 progressive 4:4:4: every DCT coefficient kept, ~6.25 bytes a pixel, ~37 MiB.
    const big = await sharp({ create: { width: 2400, height: 2400, channels: 3, background: '#468' } })
      .jpeg({ progressive: true, chromaSubsampling: '4:4:4' })
      .toBuffer();
    expect(refused(big, 40_000_000, 128)).toBe('admitted');
    expect(refused(big, 40_000_000, 32)).toMatch(
      /^too_large: decoding this 2400x2400 progressive JPEG, 3 components would hold about \d+ MiB; one frame may hold 32 MiB/,
    );
  });
});
