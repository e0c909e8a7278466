import { describe, expect, it } from 'vitest';
import { letterboxPlacement } from '../../../src/model/letterbox.ts';
import { mapBoxToImage } from '../../../src/model/map-boxes.ts';

describe('box mapping', () => {
  const target = { width: 256, height: 256, resize: 'letterbox' as const };

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
});
