import { describe, expect, it } from 'vitest';
import { letterboxPlacement } from '@sightline/shared/model';
import { readbackSize, rgbaToRgb } from '../../../src/inference/pixels.ts';

describe('readbackSize', () => {
  const ssd = { width: 300, height: 300, resize: 'stretch' as const };
  const face = { width: 256, height: 256, resize: 'letterbox' as const };

  it('keeps a frame the shared bilinear sampling can shrink (at most 1.5x per axis), as the gateway does', () => {
    expect(readbackSize({ width: 400, height: 300 }, letterboxPlacement(400, 300, ssd))).toEqual({ width: 400, height: 300 });
    expect(readbackSize({ width: 256, height: 192 }, letterboxPlacement(256, 192, face))).toEqual({ width: 256, height: 192 });
    expect(readbackSize({ width: 200, height: 150 }, letterboxPlacement(200, 150, ssd))).toEqual({ width: 200, height: 150 });
  });

  it('scales a much larger frame to its content size in the input first', () => {
    expect(readbackSize({ width: 640, height: 480 }, letterboxPlacement(640, 480, ssd))).toEqual({ width: 300, height: 300 });
    expect(readbackSize({ width: 1280, height: 720 }, letterboxPlacement(1280, 720, face))).toEqual({ width: 256, height: 144 });
  });
});

describe('rgbaToRgb', () => {
  it('drops alpha, pixel by pixel, reusing a buffer of the right size', () => {
    const rgba = new Uint8ClampedArray([1, 2, 3, 255, 4, 5, 6, 128]);
    const first = rgbaToRgb(rgba, 2, 1);
    expect(first).toEqual({ data: new Uint8Array([1, 2, 3, 4, 5, 6]), width: 2, height: 1 });
    const reused = rgbaToRgb(new Uint8ClampedArray([9, 9, 9, 0, 8, 8, 8, 0]), 2, 1, first.data);
    expect(reused.data).toBe(first.data);
    expect([...reused.data]).toEqual([9, 9, 9, 8, 8, 8]);
    expect(rgbaToRgb(rgba, 1, 1, first.data).data).not.toBe(first.data);
  });

  it('refuses too few bytes for the size', () => {
    expect(() => rgbaToRgb(new Uint8ClampedArray(4), 2, 1)).toThrow(/cannot hold 2x1/);
  });
});
