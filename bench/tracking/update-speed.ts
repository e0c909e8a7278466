/**
 * How long `Tracker.update` takes per frame with many objects: a synthetic scene of `objects` boxes of
 * one class walking across a 1280x720 image (so every frame pairs all of them), jittered, a few missed
 * and a few false alarms per frame, at 30 frames per second, the update timed over several repeats. Printed by the benchmark, never asserted
 * in a test (it measures the machine as much as the code).
 */
import { performance } from 'node:perf_hooks';
import type { Detection } from '@sightline/shared/schemas';
import { Tracker } from '@sightline/shared/tracking';
import { createRng } from '../fuzz/prng.ts';

export interface UpdateSpeed {
  objects: number;
  frames: number;
  repeats: number;
  /** The median of the repeats' mean update times: one repeat slowed by other work on the machine does not move it. */
  meanMs: number;
  /** Over every update of every repeat. */
  p50Ms: number;
  p99Ms: number;
  /** Confirmed tracks after the last frame (should be about `objects`). */
  tracks: number;
}

export function makeScene(objects: number, frames: number, seed = 1): Detection[][] {
  const rng = createRng(seed);
  const walkers = Array.from({ length: objects }, (_, i) => ({
    x: 40 + (i % 10) * 120,
    y: 40 + Math.floor(i / 10) * 130,
    vx: (rng.next() - 0.5) * 2,
    vy: (rng.next() - 0.5) * 1,
    w: 40 + rng.next() * 20,
    h: 90 + rng.next() * 30,
  }));
  const scene: Detection[][] = [];
  for (let f = 0; f < frames; f++) {
    const detections: Detection[] = [];
    for (const p of walkers) {
      p.x += p.vx;
      p.y += p.vy;
      // Bounce off the edges of a 1280x720 image, so the scene stays one of 50 people in view.
      if (p.x < 0 || p.x + p.w > 1280) p.vx = -p.vx;
      if (p.y < 0 || p.y + p.h > 720) p.vy = -p.vy;
      if (rng.chance(0.05)) continue;
      const jx = (rng.next() - 0.5) * 4;
      const jy = (rng.next() - 0.5) * 4;
      detections.push({
        label: 'person',
        classId: 1,
        score: 0.5 + rng.next() * 0.45,
        box: [p.x + jx, p.y + jy, p.x + jx + p.w, p.y + jy + p.h],
      });
    }
    for (let k = 0; k < 3; k++) {
      const x = rng.next() * 1200;
      const y = rng.next() * 600;
      detections.push({ label: 'person', classId: 1, score: 0.1 + rng.next() * 0.5, box: [x, y, x + 50, y + 100] });
    }
    scene.push(detections);
  }
  return scene;
}

export function measureUpdateSpeed(objects = 50, frames = 3000, repeats = 5): UpdateSpeed {
  const scene = makeScene(objects, frames);
  // Warm up the JIT on the same scene first.
  const warm = new Tracker();
  scene.forEach((detections, f) => warm.update(detections, (f * 1000) / 30));
  const times: number[] = [];
  const means: number[] = [];
  let tracks = 0;
  for (let r = 0; r < repeats; r++) {
    const tracker = new Tracker();
    let sum = 0;
    scene.forEach((detections, f) => {
      const start = performance.now();
      tracker.update(detections, (f * 1000) / 30);
      const took = performance.now() - start;
      times.push(took);
      sum += took;
    });
    means.push(sum / frames);
    tracks = tracker.predict(tracker.latestUpdateMs ?? 0).length;
  }
  const at = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  const sorted = times.sort((a, b) => a - b);
  return {
    objects,
    frames,
    repeats,
    meanMs: at(
      means.sort((a, b) => a - b),
      0.5,
    ),
    p50Ms: at(sorted, 0.5),
    p99Ms: at(sorted, 0.99),
    tracks,
  };
}
