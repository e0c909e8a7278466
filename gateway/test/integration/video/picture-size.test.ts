/** A keyframe's picture size read from its bitstream, on keyframes a real encoder made (VP8, H.264 with its SPS). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeVideoDecoding } from '../../../src/video/index.ts';
import { pictureSize } from '../../../src/video/picture-size.ts';
import { CLIP, makeClipSet, type ClipSet } from '../../support/video-clips.ts';

let clips: ClipSet;

beforeAll(async () => {
  const decoding = await probeVideoDecoding();
  if (!decoding.available) throw new Error(decoding.reason);
  clips = await makeClipSet(decoding.ffmpeg.path);
}, 120_000);
afterAll(() => clips?.remove());

describe('pictureSize', () => {
  it('reads the size of VP8 and H.264 keyframes, and says nothing for a delta', async () => {
    for (const codec of ['vp8', 'h264'] as const) {
      const chunks = await clips.chunks(codec);
      const key = chunks.find((c) => c.key)!;
      const delta = chunks.find((c) => !c.key)!;
      expect(pictureSize(codec, key.data), codec).toEqual({ width: CLIP.width, height: CLIP.height });
      expect(pictureSize(codec, delta.data), `${codec} delta`).toBeUndefined();
    }
    expect(pictureSize('vp8', new Uint8Array(4))).toBeUndefined();
    expect(pictureSize('vp9', new Uint8Array(100))).toBeUndefined();
  });
});
