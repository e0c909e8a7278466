import { describe, expect, it } from 'vitest';
import { makeScene, measureUpdateSpeed } from '../../../tracking/update-speed.ts';

// The timings themselves are printed by the benchmark, never asserted: only what the code controls.
describe('update speed measurement', () => {
  it('makes a seeded scene of about `objects` detections per frame', () => {
    const scene = makeScene(50, 20);
    expect(scene).toHaveLength(20);
    expect(makeScene(50, 20)).toEqual(scene);
    for (const frame of scene) expect(frame.length).toBeGreaterThan(40);
  });

  it('times every update of every repeat and tracks every object', () => {
    const speed = measureUpdateSpeed(10, 100, 2);
    expect(speed).toMatchObject({ objects: 10, frames: 100, repeats: 2, tracks: 10 });
    expect(speed.p50Ms).toBeLessThanOrEqual(speed.p99Ms);
  });
});
