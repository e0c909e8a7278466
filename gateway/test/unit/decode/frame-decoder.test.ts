/**
 * The gateway's frame decoder as the inference workers call it, with the real libjpeg-turbo and sharp:
 * which decoder takes which frame, what falls back from one to the other, and what comes back refused.
 */
import { afterAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { jpegBombHeader, pngBombHeader, readPhoto } from '@sightline/shared/fixtures';
import { join } from 'node:path';
import type { DecodedFrame, FrameDecoder } from '@sightline/shared/model';
import { ProtocolError } from '@sightline/shared/validation';
import { createBytesDecoder } from '../../../src/decode/frame-decoder.ts';
import { TurboJpegDecoder } from '../../../src/decode/jpeg-turbo.ts';
import { readModelSpec } from '../../../src/models/manifest.ts';
import { SHIPPED_MODELS_DIR } from '../../support/model-folder-fixtures.ts';

const MAX_PIXELS = 40_000_000;
const inputOf = (model: string) => readModelSpec(join(SHIPPED_MODELS_DIR, model)).manifest.input;
const SSD_INPUT = inputOf('ssdlite-mobilenetv2-coco'); // 300 x 300, stretched
const FACE_INPUT = inputOf('blazeface-back-256'); // 256 x 256, letterboxed
const dog = readPhoto('dog.jpg'); // 640 x 480

const jpeg = TurboJpegDecoder.open(MAX_PIXELS);
afterAll(() => jpeg?.close());
// A frame decoder may answer at once or later: always as a promise here.
const promising =
  (decoder: FrameDecoder) =>
  async (...args: Parameters<FrameDecoder>): Promise<DecodedFrame> =>
    decoder(...args);
const withTurbo = promising(createBytesDecoder({ maxPixels: MAX_PIXELS, jpeg }));
const sharpOnly = promising(createBytesDecoder({ maxPixels: MAX_PIXELS, jpeg: undefined }));

const cmyk = (image: Buffer) => sharp(image).toColourspace('cmyk').jpeg({ quality: 95 }).toBuffer();
/** Mean of each of R, G, B over a decoded frame. */
function channelMeans({ rgb }: DecodedFrame): number[] {
  const sums = [0, 0, 0];
  for (let i = 0; i < rgb.data.length; i++) sums[i % 3]! += rgb.data[i]!;
  return sums.map((sum) => sum / (rgb.width * rgb.height));
}
async function refusal(decoding: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = await decoding.then(
    () => new Error('decoded'),
    (e: unknown) => e,
  );
  if (!(error instanceof ProtocolError)) throw error;
  return { code: error.code, message: error.message };
}

describe('frame decoder', () => {
  it('libjpeg-turbo is available on this platform (the rest of this file tests it)', () => {
    expect(jpeg).toBeDefined();
  });

  it('decodes a plain JPEG with libjpeg-turbo at the DCT scale, and reports the size the user sent', async () => {
    const decoded = await withTurbo(dog, SSD_INPUT);
    expect(decoded.decoder).toBe('turbo');
    expect([decoded.width, decoded.height]).toEqual([640, 480]);
    expect([decoded.rgb.width, decoded.rgb.height, decoded.rgb.data.length]).toEqual([400, 300, 400 * 300 * 3]);
    expect(decoded.placement).toEqual({ offsetX: 0, offsetY: 0, contentWidth: 300, contentHeight: 300 });
    const face = await withTurbo(dog, FACE_INPUT);
    expect([face.rgb.width, face.rgb.height]).toEqual([320, 240]);
    expect(face.placement).toEqual({ offsetX: 0, offsetY: 32, contentWidth: 256, contentHeight: 192 });
  });

  it('hands a CMYK JPEG that libjpeg-turbo refuses to sharp, as the plan says (native or resized), in RGB', async () => {
    const small = await sharp(dog).resize(400, 300).jpeg({ quality: 95 }).toBuffer();
    const native = await withTurbo(await cmyk(small), SSD_INPUT);
    expect(native.decoder).toBe('sharp');
    expect([native.width, native.height, native.rgb.width, native.rgb.height]).toEqual([400, 300, 400, 300]);
    // The colours come back as RGB, close to the original's (the round trip through CMYK moves a mean by up to
    // ~12); C, M and Y read as R, G and B would be ~100 away.
    const reference = channelMeans(await withTurbo(small, SSD_INPUT));
    channelMeans(native).forEach((mean, channel) => expect(Math.abs(mean - reference[channel]!)).toBeLessThan(25));

    const resized = await withTurbo(await cmyk(dog), SSD_INPUT);
    expect(resized.decoder).toBe('sharp');
    expect([resized.width, resized.height, resized.rgb.width, resized.rgb.height]).toEqual([640, 480, 300, 300]);
  });

  it('decodes PNG and WebP with sharp, whatever libjpeg-turbo could do', async () => {
    for (const format of ['png', 'webp'] as const) {
      const decoded = await withTurbo(await sharp(dog).toFormat(format).toBuffer(), SSD_INPUT);
      expect(decoded.decoder, format).toBe('sharp');
      expect([decoded.width, decoded.height], format).toEqual([640, 480]);
    }
  });

  it('decodes every frame with sharp when there is no libjpeg-turbo decoder (SIGHTLINE_JPEG_DECODER=sharp)', async () => {
    const decoded = await sharpOnly(dog, SSD_INPUT);
    expect(decoded.decoder).toBe('sharp');
    expect([decoded.width, decoded.height, decoded.rgb.width, decoded.rgb.height]).toEqual([640, 480, 300, 300]);
  });

  it('refuses a damaged JPEG as bad_image with the reason, after both decoders had their try', async () => {
    expect(await refusal(withTurbo(dog.subarray(0, dog.length >> 1), SSD_INPUT))).toMatchObject({
      code: 'bad_image',
      message: /could not be decoded: .*premature end/i,
    });
    expect((await refusal(withTurbo(jpegBombHeader(64, 64), SSD_INPUT))).code).toBe('bad_image');
  });

  it('refuses from the header what no decoder may take: no image, or more pixels than the limit', async () => {
    expect(await refusal(withTurbo(Buffer.from('not an image at all'), SSD_INPUT))).toMatchObject({ code: 'bad_image' });
    expect(await refusal(withTurbo(pngBombHeader(50_000, 50_000), SSD_INPUT))).toMatchObject({ code: 'too_large' });
    const strict = promising(createBytesDecoder({ maxPixels: 640 * 480 - 1, jpeg }));
    expect(await refusal(strict(dog, SSD_INPUT))).toMatchObject({ code: 'too_large' });
  });
});
