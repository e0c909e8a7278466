import { describe, expect, it } from 'vitest';
import type { Detection } from '@sightline/shared/schemas';
import { frameTimeMs, runTracker } from '../../../tracking/run-tracker.ts';

/** One person walking right at 4 px per frame (100 px/s at 25 fps), seen in frames 1..30. */
function walker(frames = 30): Map<number, Detection[]> {
  const byFrame = new Map<number, Detection[]>();
  for (let f = 1; f <= frames; f++) byFrame.set(f, [{ label: 'person', classId: 1, score: 0.9, box: [100 + 4 * f, 50, 140 + 4 * f, 130] }]);
  return byFrame;
}

const left = (rows: ReturnType<typeof runTracker>, frame: number) => rows.find((r) => r.frame === frame)!.box[0];

describe('runTracker', () => {
  it('times frames at frame / fps', () => {
    expect(frameTimeMs(25, 25)).toBe(1000);
    expect(frameTimeMs(3, 30)).toBe(100);
  });

  it('draws every frame from its own detections at lag 0, from the second detection on', () => {
    const rows = runTracker(walker(), { fps: 25, lagFrames: 0 });
    expect(rows.map((r) => r.frame)).toEqual(Array.from({ length: 29 }, (_, k) => k + 2));
    expect(new Set(rows.map((r) => r.id))).toEqual(new Set([1]));
    expect(left(rows, 30)).toBeCloseTo(220, 0);
  });

  it('at lag N knows frame t only at t + N, and draws the track predicted to the frame on screen', () => {
    const predicted = runTracker(walker(), { fps: 25, lagFrames: 3 });
    const stale = runTracker(walker(), { fps: 25, lagFrames: 3, predict: false });
    // Frame 2's detection is the second one; it is known at frame 5. Nothing is drawn after the last frame.
    expect(predicted[0]!.frame).toBe(5);
    expect(predicted.at(-1)!.frame).toBe(30);
    // At frame 30 the latest answer is frame 27's: 12 px behind; the prediction puts the box back on the person.
    expect(left(stale, 30)).toBeCloseTo(208, 0);
    expect(left(predicted, 30)).toBeCloseTo(220, 0);
  });

  it('runs to the last frame asked for, with nothing left to draw once tracks are lost', () => {
    const rows = runTracker(walker(10), { fps: 25, lagFrames: 0, lastFrame: 100 });
    expect(Math.max(...rows.map((r) => r.frame))).toBeLessThan(100);
    expect(rows.filter((r) => r.frame > 10).length).toBeGreaterThan(0); // coasting a little past the last detection
  });

  it('leaves out a missed track at the edge of the picture when the image size is given', () => {
    // The person is detected up to frame 10, at the right edge of a 160 px wide picture.
    const edge = walker(10);
    const inside = runTracker(edge, { fps: 25, lagFrames: 0, lastFrame: 20 });
    const clipped = runTracker(edge, { fps: 25, lagFrames: 0, lastFrame: 20, frame: { width: 180, height: 200 } });
    expect(inside.some((r) => r.frame > 10)).toBe(true);
    expect(clipped.some((r) => r.frame > 10)).toBe(false);
  });

  it('refuses a lag that is not a whole number of frames, or no frame rate', () => {
    expect(() => runTracker(walker(), { fps: 25, lagFrames: 1.5 })).toThrow(/lagFrames/);
    expect(() => runTracker(walker(), { fps: 0, lagFrames: 0 })).toThrow(/fps/);
  });
});
