import { describe, expect, it } from 'vitest';
import { keyframeSegments } from '../../../codecs/segments.ts';

const keysEvery = (n: number, interval: number) => Array.from({ length: n }, (_, i) => i % interval === 0);

describe('keyframeSegments', () => {
  it('cuts a video stream at the keyframes nearest to even parts', () => {
    expect(keyframeSegments(keysEvery(150, 75), 2)).toEqual([
      [0, 75],
      [75, 150],
    ]);
    expect(keyframeSegments(keysEvery(150, 50), 2)).toEqual([
      [0, 50],
      [50, 150],
    ]);
  });

  it('cuts images (every frame a keyframe) evenly', () => {
    expect(keyframeSegments(Array(150).fill(true), 3)).toEqual([
      [0, 50],
      [50, 100],
      [100, 150],
    ]);
  });

  it('keeps a stream whole when no keyframe follows its first', () => {
    expect(keyframeSegments(keysEvery(8, 75), 2)).toEqual([[0, 8]]);
    expect(keyframeSegments(keysEvery(150, 75), 1)).toEqual([[0, 150]]);
  });
});
