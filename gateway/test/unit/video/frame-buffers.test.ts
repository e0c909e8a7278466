/** The two buffers between ffmpeg and the detector: stdout cut into frames, and the newest-wins frame buffer. */
import { describe, expect, it } from 'vitest';
import { LatestFrames } from '../../../src/video/latest-frames.ts';
import { RawFrameCutter } from '../../../src/video/raw-frames.ts';
import { videoError } from '../../../src/video/video-errors.ts';

describe('RawFrameCutter', () => {
  it('frames of a fixed size out of chunks of any size, each in its own buffer', () => {
    const frames: Uint8Array[] = [];
    const cutter = new RawFrameCutter(4, (frame) => frames.push(frame));
    cutter.push(new Uint8Array([1, 2, 3]));
    cutter.push(new Uint8Array([4, 5, 6, 7, 8, 9, 10]));
    expect(frames.map((frame) => [...frame])).toEqual([
      [1, 2, 3, 4],
      [5, 6, 7, 8],
    ]);
    expect(cutter.partialBytes).toBe(2);
    expect(frames[0]!.buffer).not.toBe(frames[1]!.buffer);
  });
});

describe('LatestFrames', () => {
  it('keeps at most its capacity, the oldest pushed out as superseded', () => {
    const dropped: Array<[number, string]> = [];
    const frames = new LatestFrames<number>(2, (frame, reason) => dropped.push([frame, reason]));
    [1, 2, 3, 4].forEach((frame) => frames.push(frame));
    expect(dropped).toEqual([
      [1, 'superseded'],
      [2, 'superseded'],
    ]);
    expect(frames.size).toBe(2);
  });

  it('take() gives the newest and passes over the rest; clear() drops all with its reason', () => {
    const dropped: Array<[number, string]> = [];
    const frames = new LatestFrames<number>(3, (frame, reason) => dropped.push([frame, reason]));
    [1, 2, 3].forEach((frame) => frames.push(frame));
    expect(frames.take()).toBe(3);
    expect(frames.take()).toBeUndefined();
    frames.push(4);
    frames.clear('closed');
    expect(dropped).toEqual([
      [1, 'superseded'],
      [2, 'superseded'],
      [4, 'closed'],
    ]);
  });
});

describe('video errors', () => {
  it('name the protocol code they answer with and whether a keyframe heals them', () => {
    expect(videoError('corrupt_chunk', 'x', 3)).toEqual({
      code: 'corrupt_chunk',
      message: 'x',
      chunkId: 3,
      keyframeNeeded: true,
      protocolCode: 'bad_video',
    });
    expect(videoError('too_many_pixels', 'x')).toEqual({
      code: 'too_many_pixels',
      message: 'x',
      keyframeNeeded: false,
      protocolCode: 'too_large',
    });
    expect(videoError('no_frame', 'x', 1)).toMatchObject({ keyframeNeeded: false });
    expect(videoError('decoder_exited', 'x', 1)).toMatchObject({ keyframeNeeded: true });
  });
});
