import { describe, expect, it } from 'vitest';
import { RuleEngine, type FrameObservation, type TrackedObject } from '../../../src/events/rule-engine.ts';
import type { CameraRules, NormalisedPoint, RuleEvent } from '../../../src/events/types.ts';

const W = 640;
const H = 480;
const FRAME_MS = 40; // 25 frames per second
const EPOCH = 1_700_000_000_000;

/** A person-sized box (0.05 x 0.2 of the picture) whose bottom centre is at p (normalised). */
function person(trackId: number, p: NormalisedPoint, extra: Partial<TrackedObject> = {}): TrackedObject {
  const [x, y] = [p[0] * W, p[1] * H];
  return { trackId, label: 'person', score: 0.9, box: [x - 16, y - 96, x + 16, y], ...extra };
}

const frameAt = (f: number, objects: TrackedObject[]): FrameObservation => ({
  capturedAt: f * FRAME_MS,
  detectedAt: EPOCH + f * FRAME_MS + 7,
  width: W,
  height: H,
  objects,
  frame: f,
});

/** Feeds frames 0, 1, 2... (`scene(f)` the tracks of frame f); returns every event, `end` included. */
function play(engine: RuleEngine, frames: number, scene: (f: number) => TrackedObject[], options: { end?: boolean } = {}): RuleEvent[] {
  const events: RuleEvent[] = [];
  for (let f = 0; f < frames; f++) events.push(...engine.update(frameAt(f, scene(f))));
  if (options.end) events.push(...engine.end(EPOCH + frames * FRAME_MS, frames * FRAME_MS, frames));
  return events;
}

/** Linear motion from a (frame 0) to b (frame `frames` - 1). */
const walk =
  (a: NormalisedPoint, b: NormalisedPoint, frames: number) =>
  (f: number): NormalisedPoint => {
    const t = Math.min(1, Math.max(0, f / (frames - 1)));
    return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t];
  };

/** A vertical line at x = 0.5 from y 0.2 to 0.8, drawn downwards (so the picture's left is side +1). */
const down: CameraRules = { lines: [{ name: 'door', from: [0.5, 0.2], to: [0.5, 0.8] }], zones: [] };
const up: CameraRules = { lines: [{ name: 'door', from: [0.5, 0.8], to: [0.5, 0.2] }], zones: [] };
const summary = (events: RuleEvent[]) => events.map((e) => `${e.rule}:${e.type === 'line_cross' ? e.direction : e.type}:${e.trackId}`);

/** Deterministic noise in [-1, 1), a different value each frame (a hash of f). */
const noise = (f: number, k = 1) => {
  const h = Math.sin(f * 12.9898 * k + 78.233) * 43758.5453;
  return 2 * (h - Math.floor(h)) - 1;
};

describe('RuleEngine: lines', () => {
  it('gives the direction by the side() sign, for a line drawn either way', () => {
    const leftToRight = walk([0.2, 0.6], [0.8, 0.6], 50);
    expect(summary(play(new RuleEngine('cam', down), 50, (f) => [person(1, leftToRight(f))]))).toEqual(['door:out:1']);
    expect(summary(play(new RuleEngine('cam', up), 50, (f) => [person(1, leftToRight(f))]))).toEqual(['door:in:1']);
    const rightToLeft = walk([0.8, 0.6], [0.2, 0.6], 50);
    expect(summary(play(new RuleEngine('cam', down), 50, (f) => [person(1, rightToLeft(f))]))).toEqual(['door:in:1']);
    expect(summary(play(new RuleEngine('cam', up), 50, (f) => [person(1, rightToLeft(f))]))).toEqual(['door:out:1']);
  });

  it('an event carries the camera, rule, track, label, score, box and the frame that triggered it', () => {
    const path = walk([0.3, 0.6], [0.7, 0.6], 21); // 0.02 a frame. The band is 8% of the 0.05-wide box (0.004): the mean of the last 90 ms (frames f-2..f, x(f-1)) is that far past the line from frame 12
    const [event] = play(new RuleEngine('gate-2', up), 21, (f) => [person(7, path(f), { score: 0.8 - f / 100 })]);
    expect(event).toEqual({
      camera: 'gate-2',
      rule: 'door',
      type: 'line_cross',
      direction: 'in',
      trackId: 7,
      label: 'person',
      score: 0.8 - 12 / 100,
      box: person(7, path(12)).box,
      capturedAt: 12 * FRAME_MS,
      detectedAt: EPOCH + 12 * FRAME_MS + 7,
      frame: 12,
    });
    expect(Object.keys(play(new RuleEngine('c', up), 21, (f) => [person(7, path(f))])[0]!)).not.toContain('undefined');
  });

  it('counts nothing when the track passes beyond either end of the segment', () => {
    for (const y of [0.1, 0.9]) {
      const path = walk([0.2, y], [0.8, y], 50);
      expect(play(new RuleEngine('cam', down), 50, (f) => [person(1, path(f))])).toEqual([]);
    }
    // Round the end: left of the line, below its end, then right.
    const round = (f: number): NormalisedPoint =>
      f < 20 ? [0.45, 0.5 + f * 0.02] : f < 30 ? [0.45 + (f - 20) * 0.01, 0.9] : [0.55, 0.9 - (f - 30) * 0.02];
    expect(play(new RuleEngine('cam', down), 50, (f) => [person(1, round(f))])).toEqual([]);
  });

  it('counts a box jittering on the line once', () => {
    // The band is 8% of the box across the line (32 px of 640: 0.004). Walks to the line, stands on it 3 s
    // shaking by up to ±0.0035, walks on.
    const at =
      (amplitude: number) =>
      (f: number): NormalisedPoint =>
        f < 20 ? [0.3 + f * 0.01, 0.6] : f < 95 ? [0.5 + amplitude * noise(f), 0.6] : [0.5 + (f - 95) * 0.01, 0.6];
    expect(summary(play(new RuleEngine('cam', up), 130, (f) => [person(1, at(0.0035)(f))]))).toEqual(['door:in:1']);
    // Shaking by four times as much: a band of a third of the box takes it.
    const wide = new RuleEngine('cam', up, { bandBoxFraction: 0.33 });
    expect(summary(play(wide, 130, (f) => [person(1, at(0.014)(f))]))).toEqual(['door:in:1']);
    // Shaking more than the band, it would count again and again: what the band is for.
    expect(play(new RuleEngine('cam', up, { smoothingMs: 0 }), 130, (f) => [person(1, at(0.014)(f))]).length).toBeGreaterThan(3);
  });

  it('takes the mean of the boxes over smoothingMs: a one-frame excursion past the band does not count', () => {
    const at = (f: number): NormalisedPoint => [f === 30 ? 0.508 : f < 60 ? 0.49 : 0.49 - (f - 60) * 0.01, 0.6];
    expect(play(new RuleEngine('cam', up), 80, (f) => [person(1, at(f))])).toEqual([]);
    expect(summary(play(new RuleEngine('cam', up, { smoothingMs: 0 }), 80, (f) => [person(1, at(f))]))).toEqual([
      'door:in:1',
      'door:out:1',
    ]);
  });

  it("takes the anchor from the tracker's own box when given (as is), and reports the detection's box", () => {
    // The detections shake by ±0.04 about the line while the tracker's box walks steadily across it.
    const steady = walk([0.3, 0.6], [0.7, 0.6], 41);
    const scene = (f: number) => {
      const p = steady(f);
      const detection = person(1, [p[0] + 0.04 * noise(f), p[1]]);
      return [{ ...detection, trackBox: person(1, p).box }];
    };
    const events = play(new RuleEngine('cam', up), 41, scene);
    // 0.01 a frame; the band 0.004: the tracker's box is past it at frame 21 (x 0.51), exactly then.
    expect(events.map((e) => [e.direction, e.frame])).toEqual([['in', 21]]);
    expect(events[0]!.box).toEqual(scene(21)[0]!.box);
    // The same detections alone, unsmoothed, count more than once.
    const alone = play(new RuleEngine('cam', up, { smoothingMs: 0 }), 41, (f) => scene(f).map(({ trackBox: _, ...o }) => o));
    expect(alone.length).toBeGreaterThan(1);
  });

  it('counts a track lost for a while and found again once, whether lost before or after the line', () => {
    const path = walk([0.2, 0.6], [0.8, 0.6], 60);
    for (const [from, to] of [
      [25, 35], // lost while crossing
      [32, 45], // lost after crossing
      [10, 25], // lost before
    ] as const) {
      const engine = new RuleEngine('cam', up);
      expect(summary(play(engine, 60, (f) => (f >= from && f < to ? [] : [person(3, path(f))])))).toEqual(['door:in:3']);
    }
    // Missed one frame in two near the line.
    expect(summary(play(new RuleEngine('cam', up), 60, (f) => (f > 20 && f < 40 && f % 2 ? [] : [person(3, path(f))])))).toEqual([
      'door:in:3',
    ]);
  });

  it('counts an object whose id switches near the line once (the new id takes over the lost one)', () => {
    const path = walk([0.2, 0.6], [0.8, 0.6], 60);
    // Id 1 up to just short of the line (frame 28: x 0.485), missed 3 frames, then id 2 from past the line.
    const switched = (f: number) => (f <= 28 ? [person(1, path(f))] : f <= 31 ? [] : [person(2, path(f))]);
    expect(summary(play(new RuleEngine('cam', up), 60, switched))).toEqual(['door:in:2']);
    // The switch right after the crossing: id 1 counted, id 2 (born on the far side) not again.
    const after = (f: number) => (f <= 33 ? [person(1, path(f))] : f <= 35 ? [] : [person(2, path(f))]);
    expect(summary(play(new RuleEngine('cam', up), 60, after))).toEqual(['door:in:1']);
    // Without a pause: id 2 takes over in the next frame.
    const immediate = (f: number) => [person(f <= 29 ? 1 : 2, path(f))];
    expect(summary(play(new RuleEngine('cam', up), 60, immediate))).toEqual(['door:in:2']);
  });

  it('does not hand a track missed in one frame only over to a new one beside it: another object, counted too', () => {
    const path = walk([0.2, 0.6], [0.8, 0.6], 60);
    // Id 1 walks across; a second person walks 0.03 (most of a box width) behind it and is first confirmed, as id 2,
    // in frame 30, the one frame where id 1 is missed: the frame id 1 crosses the line in. Each crosses once.
    const behind = (f: number): NormalisedPoint => [path(f)[0] - 0.03, 0.6];
    const scene = (f: number) => [...(f === 30 ? [] : [person(1, path(f))]), ...(f >= 30 ? [person(2, behind(f))] : [])];
    expect(summary(play(new RuleEngine('cam', up), 60, scene))).toEqual(['door:in:1', 'door:in:2']);
  });

  it('hands a lost track over to a new one of the same label and size nearby only', () => {
    const path = walk([0.2, 0.6], [0.8, 0.6], 60);
    const elsewhere = (f: number) => (f <= 28 ? [person(1, path(f))] : f <= 31 ? [] : [person(2, [path(f)[0], 0.3])]);
    expect(play(new RuleEngine('cam', up), 60, elsewhere)).toEqual([]); // 0.3 away: a different object
    const car = (f: number) => (f <= 28 ? [person(1, path(f))] : f <= 31 ? [] : [person(2, path(f), { label: 'car' })]);
    expect(play(new RuleEngine('cam', up), 60, car)).toEqual([]);
    // Lost for longer than lostMs: a new object.
    const late = (f: number) => (f <= 28 ? [person(1, path(f))] : f <= 70 ? [] : [person(2, path(f - 40))]);
    expect(play(new RuleEngine('cam', up), 100, late)).toEqual([]);
  });

  it('counts nothing for a track born on the far side, or in the band, until it crosses', () => {
    const path = walk([0.51, 0.6], [0.8, 0.6], 40);
    expect(play(new RuleEngine('cam', up), 40, (f) => [person(1, path(f))])).toEqual([]);
    const back = walk([0.8, 0.6], [0.2, 0.6], 40);
    expect(summary(play(new RuleEngine('cam', up), 40, (f) => [person(1, f < 40 ? back(f) : path(f))]))).toEqual(['door:out:1']);
  });

  it('counts nothing for a false alarm that flickers on the line, under a new id each time', () => {
    const events = play(new RuleEngine('cam', up), 30, (f) =>
      f % 7 < 2 ? [person(100 + Math.floor(f / 7), [0.5 + 0.02 * noise(f), 0.5 + 0.02 * noise(f, 2)])] : [],
    );
    expect(events).toEqual([]);
  });

  it('counts a young track crossing once it is old enough, unless it crossed back meanwhile', () => {
    const engine = new RuleEngine('cam', up, { minAgeMs: 200 });
    // Born 0.02 short of the line, 0.02 a frame: across at frame 2 (80 ms old), counted at frame 5 (200 ms).
    const events = play(engine, 20, (f) => [person(1, [0.48 + 0.02 * f, 0.6])]);
    expect(events.map((e) => [e.direction, e.frame])).toEqual([['in', 5]]);
    const back = play(new RuleEngine('cam', up, { minAgeMs: 200 }), 20, (f) => [person(1, [f < 3 ? 0.48 + 0.02 * f : 0.4, 0.6])]);
    expect(back).toEqual([]);
  });

  it('counts there and back, and two objects crossing at once, each', () => {
    const there = walk([0.3, 0.6], [0.7, 0.6], 30);
    const back = walk([0.7, 0.6], [0.3, 0.6], 30);
    const events = play(new RuleEngine('cam', up), 60, (f) => [person(1, f < 30 ? there(f) : back(f - 30)), person(2, [there(f)[0], 0.3])]);
    expect(summary(events)).toEqual(['door:in:1', 'door:in:2', 'door:out:1']);
  });

  it('takes only the labels and scores a rule asks for', () => {
    const rules: CameraRules = {
      lines: [
        { name: 'people', from: [0.5, 0.8], to: [0.5, 0.2], labels: ['person'] },
        { name: 'sure', from: [0.5, 0.8], to: [0.5, 0.2], minScore: 0.6 },
      ],
      zones: [],
    };
    const path = walk([0.3, 0.6], [0.7, 0.6], 30);
    const events = play(new RuleEngine('cam', rules), 30, (f) => [
      person(1, path(f), { score: 0.9 }),
      person(2, [path(f)[0], 0.5], { label: 'dog', score: 0.9 }),
      person(3, [path(f)[0], 0.4], { score: 0.5 }),
    ]);
    expect(summary(events)).toEqual(['people:in:1', 'sure:in:1', 'sure:in:2', 'people:in:3']);
  });

  it('uses the anchor a rule names (bottom centre by default)', () => {
    // A horizontal line at y 0.5 from x 0.4 to 0.6; a box 0.2 tall comes down from above until its feet are at
    // y 0.6: its centre (y 0.5 at the end) never crosses, its top never either, its feet do.
    const line = (anchor?: 'center' | 'top-center' | 'bottom-left') => ({
      lines: [{ name: 'l', from: [0.4, 0.5] as NormalisedPoint, to: [0.6, 0.5] as NormalisedPoint, ...(anchor ? { anchor } : {}) }],
      zones: [],
    });
    const path = walk([0.5, 0.3], [0.5, 0.65], 30);
    const scene = (f: number) => [person(1, path(f))];
    expect(summary(play(new RuleEngine('cam', line()), 30, scene))).toEqual(['l:in:1']);
    expect(summary(play(new RuleEngine('cam', line('center')), 30, scene))).toEqual(['l:in:1']); // centre reaches 0.55
    expect(play(new RuleEngine('cam', line('top-center')), 30, scene)).toEqual([]);
    // Moved right: the centre (x 0.62) passes beyond the segment's end, the left corner (0.595) within it.
    const right = (f: number) => [person(1, [path(f)[0] + 0.12, path(f)[1]])];
    expect(play(new RuleEngine('cam', line()), 30, right)).toEqual([]);
    expect(summary(play(new RuleEngine('cam', line('bottom-left')), 30, right))).toEqual(['l:in:1']);
  });
});

describe('RuleEngine: zones', () => {
  const zoneRules: CameraRules = {
    lines: [],
    zones: [
      {
        name: 'desk',
        polygon: [
          [0.4, 0.4],
          [0.7, 0.4],
          [0.7, 0.8],
          [0.4, 0.8],
        ],
      },
    ],
  };

  it('enters and leaves once with a box jittering on the edge', () => {
    // Walks in from the left, stands on the left edge shaking ±0.0035 (the band: 0.004), goes in, comes out to the right.
    const at = (f: number): NormalisedPoint =>
      f < 20 ? [0.2 + f * 0.01, 0.6] : f < 60 ? [0.4 + 0.0035 * noise(f), 0.6] : f < 120 ? [0.4 + (f - 60) * 0.01, 0.6] : [0.8, 0.6];
    expect(summary(play(new RuleEngine('cam', zoneRules), 130, (f) => [person(1, at(f))]))).toEqual([
      'desk:zone_enter:1',
      'desk:zone_leave:1',
    ]);
  });

  it('keeps an object missed for a while inside; it leaves when lost for good, or when the stream ends', () => {
    const inside = (f: number) => (f < 10 || (f > 25 && f < 40) ? [person(1, [0.55, 0.6])] : []);
    const engine = new RuleEngine('cam', zoneRules); // lostMs 1500: 37.5 frames
    const events = play(engine, 100, inside);
    expect(summary(events)).toEqual(['desk:zone_enter:1', 'desk:zone_leave:1']);
    expect(events[1]).toMatchObject({ frame: 39 + 38, capturedAt: (39 + 38) * FRAME_MS, box: person(1, [0.55, 0.6]).box });
    expect(engine.trackedCount).toBe(0);

    const ending = play(new RuleEngine('cam', zoneRules), 20, () => [person(4, [0.55, 0.6]), person(5, [0.1, 0.1])], { end: true });
    expect(summary(ending)).toEqual(['desk:zone_enter:4', 'desk:zone_leave:4']);
    expect(ending[1]).toMatchObject({ capturedAt: 20 * FRAME_MS, detectedAt: EPOCH + 20 * FRAME_MS, frame: 20 });
  });

  it('does not enter again when the id switches inside', () => {
    const scene = (f: number) => (f < 20 ? [person(1, [0.3 + f * 0.01, 0.6])] : f < 23 ? [] : [person(2, [0.3 + f * 0.01, 0.6])]);
    expect(summary(play(new RuleEngine('cam', zoneRules), 60, scene, { end: true }))).toEqual(['desk:zone_enter:1', 'desk:zone_leave:2']);
  });
});

describe('RuleEngine: bounds and options', () => {
  it('remembers at most maxObjects tracks and forgets those lost for lostMs', () => {
    const engine = new RuleEngine('cam', down, { maxObjects: 10, lostMs: 200 });
    for (let f = 0; f < 50; f++) {
      engine.update(frameAt(f, [person(2 * f + 1, [0.1, 0.1]), person(2 * f + 2, [0.9, 0.9])]));
      expect(engine.trackedCount).toBeLessThanOrEqual(10);
    }
    engine.update(frameAt(100, []));
    expect(engine.trackedCount).toBe(0);
  });

  it('refuses bad options and bad rules', () => {
    expect(() => new RuleEngine('cam', down, { band: -1 })).toThrow(/band/);
    expect(() => new RuleEngine('cam', down, { maxObjects: 0 })).toThrow(/maxObjects/);
    expect(() => new RuleEngine('cam', { lines: [{ name: 'x', from: [0, 0], to: [0, 0] }], zones: [] })).toThrow(/lines\[0\]\.to/);
    expect(new RuleEngine('cam', down).rules).toEqual(down);
  });
});
