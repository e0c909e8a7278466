import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { CLIP_PHOTOS, clipFrameCount, clipPhotos } from '../../../client/clip.ts';
import { VideoInputError, y4mSize } from '../../../client/video-encoding.ts';

describe('video inputs', () => {
  it('reads a clip’s picture size from its YUV4MPEG2 header', () => {
    expect(y4mSize('YUV4MPEG2 W640 H480 F25:1 Ip A1:1 C420mpeg2 XYSCSS=420MPEG2')).toEqual({ width: 640, height: 480 });
    expect(() => y4mSize('RIFF....')).toThrow(VideoInputError);
  });

  it('makes the clip of committed photos, 2 s each at 25 fps', () => {
    const photos = clipPhotos();
    expect(photos).toHaveLength(CLIP_PHOTOS.length);
    expect(photos.every((p) => existsSync(p))).toBe(true);
    expect(clipFrameCount()).toBe(CLIP_PHOTOS.length * 50);
  });
});
