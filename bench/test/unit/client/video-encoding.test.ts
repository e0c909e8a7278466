import { describe, expect, it } from 'vitest';
import { clipFrameCount, fixturePhotos } from '../../../client/clip.ts';
import { VideoInputError, y4mSize } from '../../../client/video-encoding.ts';

describe('video inputs', () => {
  it('reads a clip’s picture size from its YUV4MPEG2 header', () => {
    expect(y4mSize('YUV4MPEG2 W640 H480 F25:1 Ip A1:1 C420mpeg2 XYSCSS=420MPEG2')).toEqual({ width: 640, height: 480 });
    expect(() => y4mSize('RIFF....')).toThrow(VideoInputError);
  });

  it('makes the clip of every fixture photo, 20 frames each', () => {
    const photos = fixturePhotos();
    expect(photos.length).toBeGreaterThan(3);
    expect(photos.every((p) => p.endsWith('.jpg'))).toBe(true);
    expect(clipFrameCount()).toBe(photos.length * 20);
  });
});
