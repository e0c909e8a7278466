import { describe, expect, it } from 'vitest';
import type { ResizeTarget } from '@sightline/shared/model';
import { planDecode } from '../../../src/decode/decode-plan.ts';
import type { ImageHeader } from '../../../src/decode/image-header.ts';

const header = (width: number, height: number, more: Partial<ImageHeader> = {}): ImageHeader => ({
  format: 'jpeg',
  width,
  height,
  oriented: true,
  orientation: 1,
  ...more,
});
const stretch = { width: 300, height: 300, resize: 'stretch' as const };
const letterbox = { width: 256, height: 256, resize: 'letterbox' as const };
const kind = (h: ImageHeader, target: ResizeTarget = stretch, turbo = true) => {
  const plan = planDecode(h, target, { turbo });
  return plan.kind === 'turbo' ? `turbo ${plan.scale}/8` : plan.kind;
};

describe('decode plan', () => {
  it('decodes a plain JPEG with libjpeg-turbo at the largest DCT reduction (M/8) keeping every axis at its input size, up to a 1.5x shrink', () => {
    expect(kind(header(400, 300))).toBe('turbo 8/8'); // the dashboard's Auto frame: bilinear, 1.33x
    expect(kind(header(640, 480))).toBe('turbo 5/8'); // 400x300: bilinear 1.33x (full size would shrink 2.13x)
    expect(kind(header(800, 600))).toBe('turbo 4/8'); // 400x300: bilinear 1.33x
    expect(kind(header(480, 360))).toBe('turbo 7/8'); // 420x315: bilinear 1.4x
    expect(kind(header(1600, 1200))).toBe('turbo 2/8');
    expect(kind(header(120, 90))).toBe('turbo 8/8'); // small frames are enlarged whatever decodes them
    expect(kind(header(640, 480), letterbox)).toBe('turbo 4/8'); // 320x240 into 256x192: bilinear 1.25x
    expect(kind(header(400, 300), letterbox)).toBe('turbo 6/8'); // 300x225 into 256x192: bilinear 1.17x
  });

  it('leaves libvips what the fast path does not take, Lanczos for anything shrinking more than 1.5x', () => {
    expect(kind(header(1280, 720))).toBe('sharp-resized'); // 300 rows need 4/8: 640x360 still shrinks 2.13x
    expect(kind(header(1920, 1080))).toBe('sharp-resized'); // 3/8: 720x405, 2.4x
    expect(kind(header(2000, 300), letterbox)).toBe('sharp-resized'); // a panorama: 2/8 (500x75) still shrinks 1.95x
    expect(kind(header(640, 480, { format: 'png' }))).toBe('sharp-resized');
    expect(kind(header(400, 300, { format: 'webp' }))).toBe('sharp-native');
    expect(kind(header(400, 300, { orientation: 6 }))).toBe('sharp-native'); // rotated: libvips rotates
    expect(kind(header(400, 300), stretch, false)).toBe('sharp-native'); // SIGHTLINE_JPEG_DECODER=sharp
  });

  it('places the image as the model input needs, whichever decoder takes it', () => {
    expect(planDecode(header(640, 480), letterbox, { turbo: true }).placement).toEqual({
      offsetX: 0,
      offsetY: 32,
      contentWidth: 256,
      contentHeight: 192,
    });
    expect(planDecode(header(640, 480, { format: 'png' }), stretch, { turbo: true }).placement).toEqual({
      offsetX: 0,
      offsetY: 0,
      contentWidth: 300,
      contentHeight: 300,
    });
  });
});
