import { describe, expect, it } from 'vitest';
import { av1CodecString, evenSize, h264CodecString, videoEncoderConfig, vp9CodecString } from '../../../src/video/video-encoder-config.ts';

describe('video encoder configuration', () => {
  it('is realtime, at the bitrate, H.264 as Annex B constrained baseline (no B-frames)', () => {
    expect(videoEncoderConfig('vp8', { width: 400, height: 300 }, 500)).toEqual({
      codec: 'vp8',
      width: 400,
      height: 300,
      bitrate: 500_000,
      bitrateMode: 'variable',
      latencyMode: 'realtime',
    });
    expect(videoEncoderConfig('h264', { width: 641, height: 481 }, 1000)).toMatchObject({
      codec: 'avc1.42e01f',
      width: 640,
      height: 480,
      avc: { format: 'annexb' },
    });
  });

  it('names a level that holds the picture', () => {
    expect(h264CodecString({ width: 640, height: 480 })).toBe('avc1.42e01f');
    expect(h264CodecString({ width: 1280, height: 720 })).toBe('avc1.42e01f');
    expect(h264CodecString({ width: 1920, height: 1080 })).toBe('avc1.42e028');
    expect(h264CodecString({ width: 3840, height: 2160 })).toBe('avc1.42e033');
    expect(vp9CodecString({ width: 1920, height: 1080 })).toBe('vp09.00.40.08');
    expect(vp9CodecString({ width: 3840, height: 2160 })).toBe('vp09.00.50.08');
    expect(av1CodecString({ width: 640, height: 480 })).toBe('av01.0.04M.08');
    expect(av1CodecString({ width: 1280, height: 720 })).toBe('av01.0.05M.08');
    expect(av1CodecString({ width: 1920, height: 1080 })).toBe('av01.0.08M.08');
  });

  it('encodes even sides (4:2:0)', () => {
    expect(evenSize({ width: 401, height: 301 })).toEqual({ width: 400, height: 300 });
    expect(evenSize({ width: 1, height: 1 })).toEqual({ width: 2, height: 2 });
  });
});
