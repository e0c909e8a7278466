import { describe, expect, it } from 'vitest';
import type { Detection } from '@sightline/shared/protocol';
import type { FrameOutcome } from '../../../src/frame-routes/frame-outcome.ts';
import { LiveTracks, toSpace, type IdentifiedFrame } from '../../../src/tracking/live-tracks.ts';
import { FakeClock } from '../../support/fake-clock.ts';
import { deviceFrame, deviceResult, errorOutcome } from '../../support/outcomes.ts';

/** A dog 100 px wide moving right at 200 px/s, in a 400x300 picture: its box at capture time `t` ms. */
const dogAt = (t: number, score = 0.9): Detection => {
  const x = 50 + (200 * t) / 1000;
  return { label: 'dog', classId: 18, score, box: [x, 100, x + 100, 180] };
};

const centreX = (box: readonly number[]) => (box[0]! + box[2]!) / 2;

/** The page clock starts as the answer to the frame taken at 1000 arrives (80 ms later). */
function setup(start = 1080) {
  const clock = new FakeClock(start);
  const tracks = new LiveTracks({ clock });
  const identified: IdentifiedFrame[] = [];
  tracks.identified.subscribe((frame) => identified.push(frame));
  let changes = 0;
  tracks.changed.subscribe(() => changes++);
  let id = 0;
  /** An answer for the frame taken at `capturedAt`, arriving 80 ms later. */
  const answer = (capturedAt: number, detections: Detection[], size = { width: 400, height: 300 }): FrameOutcome => ({
    frame: deviceFrame(++id, capturedAt + 5, { capturedAt }),
    kind: 'ok',
    answeredAt: capturedAt + 80,
    result: deviceResult(30, { detections, ...size }),
  });
  /** Answers every 100 ms of capture time from 0 to `until`. */
  const stream = (until: number) => {
    for (let t = 0; t <= until; t += 100) tracks.record(answer(t, [dogAt(t)]));
  };
  return { clock, tracks, identified, changes: () => changes, answer, stream };
}

describe('LiveTracks', () => {
  it('gives each object a track id from its second detection on, and says so per detection', () => {
    const h = setup();
    h.tracks.record(h.answer(0, [dogAt(0)]));
    h.tracks.record(h.answer(100, [dogAt(100)]));
    h.tracks.record(h.answer(200, [dogAt(200)]));
    expect(h.identified.map((frame) => frame.trackIds)).toEqual([[undefined], [1], [1]]);
    expect(h.identified[2]).toMatchObject({ frame: { capturedAt: 200 }, width: 400, height: 300, detections: [{ label: 'dog' }] });
    expect(h.tracks.summary()).toMatchObject({ unique: 1, counts: [{ label: 'dog', count: 1 }], latest: { frameId: 3, trackIds: [1] } });
    expect(h.changes()).toBe(3);
  });

  it('draws predicted boxes where the object is at the capture time of the frame on screen, raw ones where it was', () => {
    const h = setup();
    h.stream(1000);
    // The frame on screen was taken 150 ms after the latest answered one.
    const predicted = h.tracks.sceneAt('predicted', 1150)!;
    expect(predicted).toMatchObject({ mode: 'predicted', width: 400, height: 300, leadMs: 150 });
    expect(predicted.items).toHaveLength(1);
    expect(predicted.items[0]).toMatchObject({ trackId: 1, label: 'dog' });
    expect(Math.abs(centreX(predicted.items[0]!.box) - centreX(dogAt(1150).box))).toBeLessThan(2);
    // The trail runs through the past centres on to the predicted box.
    expect(predicted.items[0]!.trail.length).toBeGreaterThan(5);
    expect(predicted.items[0]!.trail.at(-1)![0]).toBeCloseTo(centreX(predicted.items[0]!.box), 6);

    const raw = h.tracks.sceneAt('raw', 1150)!;
    expect(raw).toMatchObject({ mode: 'raw', leadMs: 150, items: [{ trackId: 1, box: dogAt(1000).box }] });
    // 200 px/s x 150 ms: raw boxes lag by 30 px.
    expect(centreX(dogAt(1150).box) - centreX(raw.items[0]!.box)).toBeCloseTo(30, 6);
  });

  it('draws detections no confirmed track holds as they came, without an id, in both modes', () => {
    const h = setup();
    h.stream(500);
    const cat: Detection = { label: 'cat', classId: 17, score: 0.55, box: [300, 200, 350, 260] }; // below the tracker's birth score
    h.tracks.record(h.answer(600, [dogAt(600), cat]));
    expect(h.identified.at(-1)!.trackIds).toEqual([1, undefined]);
    for (const mode of ['predicted', 'raw'] as const) {
      const items = h.tracks.sceneAt(mode, 650)!.items;
      expect(items.map((item) => [item.label, item.trackId])).toEqual([
        ['dog', 1],
        ['cat', undefined],
      ]);
      expect(items[1]).toMatchObject({ box: cat.box, trail: [] });
    }
  });

  it('shows the median lead of the frames drawn in the last second, each frame once', () => {
    const h = setup();
    h.stream(1000);
    for (const [displayAt, step] of [
      [1100, 100],
      [1100, 0], // the same frame redrawn (a resize): not counted again
      [1120, 50],
      [1200, 50],
    ] as const) {
      h.tracks.sceneAt('predicted', displayAt);
      h.clock.advance(step);
    }
    expect(h.tracks.summary().leadMs).toBe(120);
    h.clock.advance(1000);
    expect(h.tracks.summary().leadMs).toBeUndefined();
  });

  it('counts no lead once the latest answer is stale (paused, stalled), and at most the prediction limit', () => {
    const h = setup();
    h.stream(1000);
    const limit = 500; // the tracker's maxPredictionMs
    // A slow stream: predicted boxes are moved on by the limit at most, raw ones lag by all of it.
    h.tracks.sceneAt('predicted', 1700);
    expect(h.tracks.summary().leadMs).toBe(limit);
    h.tracks.sceneAt('raw', 1750);
    expect(h.tracks.summary().leadMs).toBe((limit + 750) / 2);
    // Nothing answered for longer than the stale time: frames still drawn (dimmed), no lead counted.
    h.clock.advance(2000);
    h.tracks.sceneAt('raw', 3800);
    expect(h.tracks.summary().leadMs).toBeUndefined();
  });

  it('tracks in the first answer’s picture space: a frame-size change rescales, it does not break the tracks', () => {
    const h = setup();
    h.stream(500);
    const big = (t: number): Detection => ({ ...dogAt(t), box: dogAt(t).box.map((v) => v * 2) as Detection['box'] });
    h.tracks.record(h.answer(600, [big(600)], { width: 800, height: 600 }));
    expect(h.identified.at(-1)).toMatchObject({ width: 800, height: 600, trackIds: [1], detections: [{ box: big(600).box }] });
    expect(h.tracks.sceneAt('raw', 600)).toMatchObject({ width: 400, height: 300, items: [{ box: dogAt(600).box }] });
    expect(h.tracks.summary().unique).toBe(1);
  });

  it('ignores an answer overtaken by a later frame’s: no ids, nothing drawn from it', () => {
    const h = setup();
    h.stream(500);
    const version = h.tracks.version;
    h.tracks.record(h.answer(450, [dogAt(450)]));
    expect(h.identified.at(-1)!.trackIds).toEqual([undefined]);
    expect(h.tracks.version).toBe(version);
    expect(h.tracks.sceneAt('raw', 500)!.items[0]!.box).toEqual(dogAt(500).box);
  });

  it('ignores frames that brought no detections result', () => {
    const h = setup();
    h.tracks.record(errorOutcome(deviceFrame(1, 0), 50));
    expect(h.identified).toEqual([]);
    expect(h.tracks.sceneAt('predicted', 100)).toBeUndefined();
  });

  it('starts afresh on reset: no tracks, no unique objects, ids from 1 again', () => {
    const h = setup();
    h.stream(300);
    const version = h.tracks.version;
    h.tracks.reset();
    expect(h.tracks.version).toBe(version + 1);
    expect(h.tracks.sceneAt('predicted', 400)).toBeUndefined();
    expect(h.tracks.summary()).toEqual({ unique: 0, counts: [] });
    h.tracks.record(h.answer(1000, [dogAt(1000)]));
    h.tracks.record(h.answer(1100, [dogAt(1100)]));
    expect(h.identified.at(-1)!.trackIds).toEqual([1]);
  });
});

describe('toSpace', () => {
  it('rescales boxes into another size of the same picture, and leaves them alone at the same size', () => {
    const detections = [dogAt(0)];
    expect(toSpace(detections, { width: 400, height: 300 }, { width: 400, height: 300 })).toBe(detections);
    expect(toSpace(detections, { width: 400, height: 300 }, { width: 200, height: 150 })[0]!.box).toEqual([25, 50, 75, 90]);
  });
});
