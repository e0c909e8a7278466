import { describe, expect, it } from 'vitest';
import { autoLongSide, frameSizeChoices, parseFrameSize, targetSize } from '../../../src/capture/frame-size.ts';

describe('frame size', () => {
  it('scales the long side, keeps aspect, never upscales', () => {
    expect(targetSize({ width: 1280, height: 720 }, 320)).toEqual({ width: 320, height: 180 });
    expect(targetSize({ width: 720, height: 1280 }, 320)).toEqual({ width: 180, height: 320 });
    expect(targetSize({ width: 640, height: 480 }, 1280)).toEqual({ width: 640, height: 480 });
    expect(targetSize({ width: 640, height: 480 }, 'native')).toEqual({ width: 640, height: 480 });
  });
  it('offers sizes up to the native one', () => {
    expect(frameSizeChoices({ width: 640, height: 480 })).toEqual(['auto', 160, 240, 320, 416, 480, 640, 'native']);
    expect(frameSizeChoices({ width: 600, height: 400 })).toEqual(['auto', 160, 240, 320, 416, 480, 'native']);
    expect(frameSizeChoices(undefined)[0]).toBe('auto');
    expect(parseFrameSize('native')).toBe('native');
    expect(parseFrameSize('auto')).toBe('auto');
    expect(parseFrameSize('480')).toBe(480);
    expect(parseFrameSize('junk')).toBe('auto');
    expect(parseFrameSize(-5)).toBe('auto');
  });

  const ssd = { width: 300, height: 300, resize: 'stretch' as const };
  const blazeface = { width: 256, height: 256, resize: 'letterbox' as const };

  it('auto: a stretch model gets a short side of at least its input short side', () => {
    expect(targetSize({ width: 640, height: 480 }, 'auto', ssd)).toEqual({ width: 400, height: 300 });
    expect(targetSize({ width: 480, height: 640 }, 'auto', ssd)).toEqual({ width: 300, height: 400 });
    expect(targetSize({ width: 1920, height: 1080 }, 'auto', ssd)).toEqual({ width: 534, height: 300 });
    expect(targetSize({ width: 1280, height: 720 }, 'auto', { width: 320, height: 240, resize: 'stretch' })).toEqual({
      width: 427,
      height: 240,
    });
    for (const [w, h] of [
      [641, 479],
      [1000, 333],
      [333, 1000],
      [3840, 2160],
    ] as const) {
      const size = targetSize({ width: w, height: h }, 'auto', ssd);
      expect(Math.min(size.width, size.height)).toBeGreaterThanOrEqual(300);
      expect(Math.min(size.width, size.height)).toBeLessThanOrEqual(301);
    }
  });

  it('auto: a letterbox model gets a long side of at least its input long side', () => {
    expect(targetSize({ width: 640, height: 480 }, 'auto', blazeface)).toEqual({ width: 256, height: 192 });
    expect(targetSize({ width: 480, height: 640 }, 'auto', blazeface)).toEqual({ width: 192, height: 256 });
    expect(autoLongSide({ width: 1280, height: 720 }, { width: 640, height: 384, resize: 'letterbox' })).toBe(640);
  });

  it('auto: never upscales beyond the source, and has a fallback before the model is known', () => {
    expect(targetSize({ width: 320, height: 240 }, 'auto', ssd)).toEqual({ width: 320, height: 240 });
    expect(targetSize({ width: 200, height: 150 }, 'auto', blazeface)).toEqual({ width: 200, height: 150 });
    expect(targetSize({ width: 640, height: 480 }, 'auto')).toEqual({ width: 416, height: 312 });
    expect(targetSize({ width: 300, height: 200 }, 'auto')).toEqual({ width: 300, height: 200 });
  });
});
