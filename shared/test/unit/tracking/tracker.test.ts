import { describe, expect, it } from 'vitest';
import type { Detection } from '../../../src/schemas.ts';
import { Tracker } from '../../../src/tracking/tracker.ts';
import type { Box, TrackedBox } from '../../../src/tracking/track.ts';

const FRAME_MS = 40; // 25 frames per second

/** A 40x80 box centred on (x, y). */
function det(x: number, y: number, score = 0.9, label = 'person', classId = 1): Detection {
  return { label, classId, score, box: [x - 20, y - 40, x + 20, y + 40] };
}

const centre = (box: Box) => [(box[0] + box[2]) / 2, (box[1] + box[3]) / 2] as const;

/** Feeds `frames` frames of detections made by `at(timeMs)`; returns the tracker. */
function run(tracker: Tracker, frames: number, at: (timeMs: number, frame: number) => Detection[], startMs = 0): Tracker {
  for (let f = 0; f < frames; f++) tracker.update(at(startMs + f * FRAME_MS, f), startMs + f * FRAME_MS);
  return tracker;
}

function confirmedIds(tracker: Tracker): number[] {
  return tracker.predict(tracker.latestUpdateMs ?? 0).map((t) => t.id);
}

function nearest(boxes: readonly TrackedBox[], x: number, y: number): TrackedBox {
  const distance = (b: TrackedBox) => Math.hypot(centre(b.box)[0] - x, centre(b.box)[1] - y);
  return [...boxes].sort((a, b) => distance(a) - distance(b))[0]!;
}

describe('Tracker', () => {
  it('follows one object in constant motion under one id, confirmed at its second detection', () => {
    const tracker = new Tracker();
    const x = (ms: number) => 100 + 0.1 * ms; // 100 px/s
    const first = tracker.update([det(x(0), 200)], 0);
    expect(first).toMatchObject([{ id: -1, confirmed: false, hits: 1 }]);
    expect(tracker.predict(0)).toEqual([]);
    const second = tracker.update([det(x(40), 200)], 40);
    expect(second).toMatchObject([{ id: 1, confirmed: true, hits: 2, ageMs: 40, missedMs: 0, label: 'person', classId: 1 }]);

    const ids = new Set<number>();
    for (let f = 2; f < 50; f++) for (const t of tracker.update([det(x(f * FRAME_MS), 200)], f * FRAME_MS)) ids.add(t.id);
    expect([...ids]).toEqual([1]);
    const [track] = tracker.predict(49 * FRAME_MS);
    expect(track!.velocity[0]).toBeCloseTo(100, -1);
    expect(Math.abs(track!.velocity[1])).toBeLessThan(1);
    expect(centre(track!.box)[0]).toBeCloseTo(x(49 * FRAME_MS), 0);
    expect(tracker.confirmedCount).toBe(1);
  });

  it('keeps the ids of two objects of one class that cross each other', () => {
    const tracker = new Tracker();
    // Opposite directions at 250 px/s, 10 px apart vertically: their boxes overlap for ~0.3 s.
    const a = (ms: number) => 100 + 0.25 * ms;
    const b = (ms: number) => 500 - 0.25 * ms;
    run(tracker, 5, (ms) => [det(a(ms), 200), det(b(ms), 210)]);
    const before = tracker.predict(4 * FRAME_MS);
    const idA = nearest(before, a(160), 200).id;
    const idB = nearest(before, b(160), 210).id;
    expect(idA).not.toBe(idB);
    run(tracker, 45, (ms) => [det(a(ms), 200), det(b(ms), 210)], 5 * FRAME_MS);
    const after = tracker.predict(49 * FRAME_MS);
    expect(nearest(after, a(49 * FRAME_MS), 200).id).toBe(idA);
    expect(nearest(after, b(49 * FRAME_MS), 210).id).toBe(idB);
    expect(tracker.confirmedCount).toBe(2);
  });

  it('never gives one class’s detection to a track of another, even where their boxes coincide', () => {
    const tracker = new Tracker();
    const person = (ms: number) => 100 + 0.25 * ms;
    const dog = (ms: number) => 500 - 0.25 * ms;
    const frame = (ms: number) => [det(person(ms), 200, 0.9, 'person', 1), det(dog(ms), 200, 0.9, 'dog', 18)];
    run(tracker, 50, frame);
    const tracks = tracker.predict(49 * FRAME_MS);
    expect(tracks).toHaveLength(2);
    const p = tracks.find((t) => t.label === 'person')!;
    const d = tracks.find((t) => t.label === 'dog')!;
    expect(centre(p.box)[0]).toBeCloseTo(person(49 * FRAME_MS), 0);
    expect(centre(d.box)[0]).toBeCloseTo(dog(49 * FRAME_MS), 0);
    expect([p.id, d.id].sort()).toEqual([1, 2]);
    expect(tracker.confirmedCount).toBe(2);
  });

  it('coasts through missed detections and takes the object back under its id', () => {
    const tracker = new Tracker();
    const x = (ms: number) => 100 + 0.1 * ms;
    run(tracker, 20, (ms) => [det(x(ms), 200)]);
    // 600 ms without a detection (under maxLostMs): drawn while under maxCoastMs, then hidden.
    const shown: number[] = [];
    for (let f = 20; f < 35; f++) {
      tracker.update([], f * FRAME_MS);
      shown.push(tracker.predict(f * FRAME_MS).length);
    }
    const coastFrames = Math.floor(tracker.options.maxCoastMs / FRAME_MS);
    expect(shown).toEqual(Array.from({ length: 15 }, (_, k) => (k < coastFrames ? 1 : 0)));
    const [back] = tracker.update([det(x(35 * FRAME_MS), 200)], 35 * FRAME_MS);
    expect(back).toMatchObject({ id: 1, missedMs: 0 });
    expect(tracker.confirmedCount).toBe(1);
  });

  it('handles irregular timestamps: same id, velocity in pixels per second of real time', () => {
    const tracker = new Tracker();
    const gaps = [33, 12, 70, 41, 25, 90, 18, 55, 30, 66];
    let ms = 0;
    for (let k = 0; k < 60; k++) {
      ms += gaps[k % gaps.length]!;
      const tracks = tracker.update([det(100 + 0.15 * ms, 300 - 0.05 * ms)], ms);
      // Detected twice 12 ms apart is not yet confirmedAfterMs (30) of evidence; the third, 82 ms on, is.
      if (k === 1) expect(tracks.map((t) => t.id)).toEqual([-1]);
      if (k > 1) expect(tracks.map((t) => t.id)).toEqual([1]);
    }
    const [track] = tracker.predict(ms);
    expect(track!.velocity[0]).toBeCloseTo(150, -1);
    expect(track!.velocity[1]).toBeCloseTo(-50, -1);
  });

  it('matches across dropped frames on the predicted motion, where the boxes no longer overlap', () => {
    const tracker = new Tracker();
    const x = (ms: number) => 100 + 0.4 * ms; // 16 px per frame, the box is 40 wide
    run(tracker, 15, (ms) => [det(x(ms), 200)]);
    // Frames 15 and 16 are dropped: 120 ms, 48 px, between the two detections.
    const lastSeen = det(x(14 * FRAME_MS), 200).box;
    const next = det(x(17 * FRAME_MS), 200);
    expect(Math.max(0, lastSeen[2] - next.box[0])).toBe(0);
    const [track] = tracker.update([next], 17 * FRAME_MS);
    expect(track).toMatchObject({ id: 1, missedMs: 0, hits: 16 });
  });

  it('keeps a track on low-score detections (second stage), which never start tracks of their own', () => {
    const x = (ms: number) => 100 + 0.1 * ms;
    const scoreAt = (f: number) => (f >= 10 && f < 20 ? 0.3 : 0.9);
    const withSecondStage = run(new Tracker(), 25, (ms, f) => [det(x(ms), 200, scoreAt(f))]);
    const withoutSecondStage = run(new Tracker({ lowScore: 0.5 }), 20, (ms, f) => [det(x(ms), 200, scoreAt(f))]);
    const [kept] = withSecondStage.update([det(x(25 * FRAME_MS), 200)], 25 * FRAME_MS);
    expect(kept).toMatchObject({ id: 1, hits: 26, missedMs: 0 });
    expect(withoutSecondStage.update([], 20 * FRAME_MS)[0]).toMatchObject({ id: 1, hits: 10, missedMs: 440 });

    const lowOnly = run(new Tracker(), 10, (ms) => [det(x(ms), 200, 0.3)]);
    expect(lowOnly.update([], 10 * FRAME_MS)).toEqual([]);
  });

  it('keeps a track through a hard-to-see spell: low scores after missed frames, while it still coasts', () => {
    const x = (ms: number) => 100 + 0.1 * ms;
    // Detected (high) to frame 9, missed in frames 10-12, then low scores in 13-19, then high again.
    const at = (ms: number, f: number) => (f >= 10 && f < 13 ? [] : [det(x(ms), 200, f >= 13 && f < 20 ? 0.3 : 0.9)]);
    const tracker = run(new Tracker(), 25, at);
    expect(tracker.update([det(x(25 * FRAME_MS), 200)], 25 * FRAME_MS)).toMatchObject([{ id: 1, hits: 23, missedMs: 0 }]);
    expect(tracker.confirmedCount).toBe(1);

    // ByteTrack's own second stage (only tracks detected in the previous update): the low scores after a miss
    // are lost, and the object comes back under a new id.
    const byteTrack = run(new Tracker({ lowScoreMaxGapMs: 0 }), 20, at);
    expect(byteTrack.update([], 20 * FRAME_MS)).toMatchObject([{ id: 1, hits: 10, missedMs: 440 }]);

    // Missed for longer than lowScoreMaxGapMs: a low score no longer extends the track (a high one still would).
    const late = run(new Tracker({ lowScoreMaxGapMs: 100 }), 14, at);
    expect(late.update([], 14 * FRAME_MS)).toMatchObject([{ id: 1, hits: 10, missedMs: 200 }]);
  });

  it('confirms a new track with a second high score, or with low ones as well after confirmAfterHits', () => {
    const x = (ms: number) => 100 + 0.1 * ms;
    const twoHigh = run(new Tracker(), 2, (ms) => [det(x(ms), 200)]);
    expect(confirmedIds(twoHigh)).toEqual([1]);
    // A high score, then low ones: tentative at the second detection, confirmed at the third.
    const highThenLow = new Tracker();
    expect(highThenLow.update([det(x(0), 200, 0.9)], 0)).toMatchObject([{ id: -1 }]);
    expect(highThenLow.update([det(x(40), 200, 0.3)], 40)).toMatchObject([{ id: -1, hits: 2 }]);
    expect(highThenLow.update([det(x(80), 200, 0.3)], 80)).toMatchObject([{ id: 1, hits: 3 }]);
    // A high score and a single low one, then nothing: never confirmed.
    const once = run(new Tracker(), 2, (ms, f) => [det(x(ms), 200, f === 0 ? 0.9 : 0.3)]);
    expect(run(once, 5, () => [], 80).update([], 300)).toEqual([]);
    expect(once.confirmedCount).toBe(0);
  });

  it('gives a new object its own detections when it comes out from behind a tracked one missed in that frame', () => {
    const a = (ms: number) => 100 + 0.1 * ms;
    const tracker = run(new Tracker(), 10, (ms) => [det(a(ms), 200)]);
    // Frame 10: a second object appears 16 px behind the first (their boxes overlap: IoU 0.43).
    const b = (ms: number) => a(ms) - 16;
    tracker.update([det(a(400), 200), det(b(400), 200)], 400);
    // Frame 11: the first is missed. The new object's detection overlaps the first's track too (IoU 0.43, enough
    // to pair), but more its own tentative one (0.8): it confirms that, and the first track coasts.
    const tracks = tracker.update([det(b(440), 200)], 440);
    expect(tracks.map((t) => [t.id, t.missedMs])).toEqual([
      [1, 40],
      [2, 0],
    ]);
    // Track 2 follows the second object (x 128), not the first (x 144).
    expect(Math.abs(centre(tracks.find((t) => t.id === 2)!.box)[0] - b(440))).toBeLessThan(3);
  });

  it('drops a confirmed track missed longer than maxLostMs and a tentative one after tentativeMaxGapMs', () => {
    const tracker = new Tracker({ maxLostMs: 1000, tentativeMaxGapMs: 100 });
    run(tracker, 5, () => [det(100, 200)]);
    const lastHit = 4 * FRAME_MS;
    tracker.update([det(400, 100)], lastHit + 40); // a new, tentative track far away
    expect(tracker.update([], lastHit + 140).map((t) => t.id)).toEqual([1, -1]);
    expect(tracker.update([], lastHit + 141).map((t) => t.id)).toEqual([1]);
    expect(tracker.update([], lastHit + 1000).map((t) => t.id)).toEqual([1]);
    expect(tracker.update([], lastHit + 1001)).toEqual([]);
    // The id is not reused.
    run(tracker, 3, () => [det(100, 200)], lastHit + 1040);
    expect(confirmedIds(tracker)).toEqual([2]);
  });

  it('predicts boxes ahead of the latest update along the motion, up to maxPredictionMs', () => {
    const tracker = new Tracker({ maxPredictionMs: 500 });
    run(tracker, 50, (ms) => [det(100 + 0.2 * ms, 240 + 0.05 * ms)]);
    const now = 49 * FRAME_MS;
    const [atNow] = tracker.predict(now);
    const [ahead] = tracker.predict(now + 200);
    const [far] = tracker.predict(now + 5000);
    const [farCapped] = tracker.predict(now + 500);
    const [cx, cy] = centre(atNow!.box);
    expect(centre(ahead!.box)[0]).toBeCloseTo(cx + 40, 0);
    expect(centre(ahead!.box)[1]).toBeCloseTo(cy + 10, 0);
    expect(far!.box).toEqual(farCapped!.box);
    // The same width and height: the size does not drift on a steady object.
    expect(ahead!.box[2] - ahead!.box[0]).toBeCloseTo(40, 0);
    expect(ahead!.box[3] - ahead!.box[1]).toBeCloseTo(80, 0);
    // Predicting does not move the tracker.
    expect(tracker.predict(now)[0]!.box).toEqual(atNow!.box);
  });

  it('given the picture size, stops drawing a missed track at the edge, but not a detected one', () => {
    const tracker = new Tracker();
    const frame = { width: 240, height: 240 };
    // Walking right at 200 px/s; the last detection's box ends at x = 240, the picture's edge.
    run(tracker, 16, (ms) => [det(100 + 0.2 * ms, 120)]);
    expect(tracker.predict(15 * FRAME_MS, frame)).toHaveLength(1);
    expect(tracker.predict(15 * FRAME_MS + 100, frame)).toHaveLength(1); // detected: drawn, even predicted past the edge
    tracker.update([], 16 * FRAME_MS);
    expect(tracker.predict(16 * FRAME_MS)).toHaveLength(1); // coasting
    expect(tracker.predict(16 * FRAME_MS, frame)).toEqual([]); // coasting out of the picture
  });

  it('ignores an answer older than the latest update', () => {
    const tracker = new Tracker();
    run(tracker, 5, () => [det(100, 200)]);
    const before = tracker.predict(160);
    const after = tracker.update([det(300, 300), det(500, 300)], 100);
    expect(after.map((t) => t.id)).toEqual([1]);
    expect(tracker.predict(160)).toEqual(before);
    expect(tracker.latestUpdateMs).toBe(160);
  });

  it('numbers tracks 1, 2, 3 in order of confirmation, keeps a bounded trail, and resets', () => {
    const tracker = new Tracker({ trailLength: 5 });
    run(tracker, 10, (ms, f) => [det(100 + ms * 0.1, 100), ...(f >= 3 ? [det(300, 300)] : []), ...(f >= 6 ? [det(500, 100)] : [])]);
    const tracks = tracker.predict(9 * FRAME_MS);
    expect(tracks.map((t) => t.id).sort()).toEqual([1, 2, 3]);
    const first = tracks.find((t) => t.id === 1)!;
    expect(first.trail).toHaveLength(5);
    expect(first.trail[4]![0]).toBeGreaterThan(first.trail[0]![0]);
    expect(tracks.find((t) => t.id === 3)!.trail).toHaveLength(4);
    tracker.reset();
    expect(tracker.predict(0)).toEqual([]);
    expect(tracker.confirmedCount).toBe(0);
    run(tracker, 2, () => [det(100, 100)]);
    expect(confirmedIds(tracker)).toEqual([1]);
  });

  it('refuses options that make no sense', () => {
    expect(() => new Tracker({ maxLostMs: -1 })).toThrow(/maxLostMs/);
    expect(() => new Tracker({ lowScore: 0.8, highScore: 0.5 })).toThrow(/lowScore/);
    expect(() => new Tracker({ trailLength: 0 })).toThrow(/trailLength/);
    expect(() => new Tracker({ confirmAfterHits: 1 })).toThrow(/confirmAfterHits/);
    expect(() => new Tracker().update([], Number.NaN)).toThrow(/captureTimeMs/);
  });
});

describe('identify', () => {
  it("gives each detection its confirmed track's id, none while tentative or for an overtaken frame", () => {
    const tracker = new Tracker();
    const first = [det(100, 100), det(300, 100)];
    expect(tracker.identify(first, 0)).toEqual([undefined, undefined]);
    const second = [det(302, 100), det(102, 100)];
    expect(tracker.identify(second, 40)).toEqual([2, 1]);
    expect(tracker.identify([det(104, 100), det(304, 100)], 80)).toEqual([1, 2]);
    expect(tracker.identify([det(104, 100)], 60)).toEqual([undefined]);
  });
});
