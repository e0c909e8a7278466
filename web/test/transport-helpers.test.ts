import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../src/transport/backoff.ts';
import { gatewaySocketUrl } from '../src/transport/gateway-url.ts';
import { autoLongSide, frameSizeChoices, parseFrameSize, targetSize } from '../src/capture/frame-size.ts';
import { fileKindOf } from '../src/capture/media-source.ts';
import { EventLog } from '../src/app/event-log.ts';

describe('backoffDelay', () => {
  const options = { baseMs: 500, maxMs: 8000, factor: 2, jitter: 0.5 };
  it('grows exponentially up to the cap', () => {
    const top = (attempt: number) => backoffDelay(attempt, options, () => 1);
    expect([0, 1, 2, 3, 4, 5, 10].map(top)).toEqual([500, 1000, 2000, 4000, 8000, 8000, 8000]);
  });
  it('jitters within [(1 - j) * d, d]', () => {
    expect(backoffDelay(2, options, () => 0)).toBe(1000);
    expect(backoffDelay(2, options, () => 0.5)).toBe(1500);
  });
});

describe('gatewaySocketUrl', () => {
  it('uses the page origin and the protocol version', () => {
    expect(gatewaySocketUrl({ protocol: 'http:', host: 'localhost:8080' })).toBe('ws://localhost:8080/ws?protocol=1');
    expect(gatewaySocketUrl({ protocol: 'https:', host: 'example.test' })).toBe('wss://example.test/ws?protocol=1');
  });
});

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
    expect(targetSize({ width: 1280, height: 720 }, 'auto', { width: 320, height: 240, resize: 'stretch' })).toEqual({ width: 427, height: 240 });
    for (const [w, h] of [[641, 479], [1000, 333], [333, 1000], [3840, 2160]] as const) {
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

describe('fileKindOf', () => {
  it('tells videos from images by type, then by extension', () => {
    expect(fileKindOf({ type: 'video/mp4', name: 'a' })).toBe('video');
    expect(fileKindOf({ type: 'image/jpeg', name: 'a' })).toBe('image');
    expect(fileKindOf({ type: '', name: 'clip.WEBM' })).toBe('video');
    expect(fileKindOf({ type: '', name: 'notes.txt' })).toBeUndefined();
  });
});

describe('EventLog', () => {
  it('collapses identical consecutive entries and keeps a bounded history', () => {
    const log = new EventLog(3);
    log.add('unknown_model', 'no such model', 1, 5);
    log.add('unknown_model', 'no such model', 2, 6);
    expect(log.list()).toHaveLength(1);
    expect(log.list()[0]).toMatchObject({ count: 2, firstAt: 1, lastAt: 2, id: 6 });
    log.add('bad_image', 'x', 3);
    log.add('too_large', 'y', 4);
    log.add('internal', 'z', 5);
    expect(log.list().map((e) => e.code)).toEqual(['bad_image', 'too_large', 'internal']);
  });
});
