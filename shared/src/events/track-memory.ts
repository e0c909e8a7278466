/**
 * What the rule engine remembers of one track: when it was seen, its recent boxes (normalised, for the smoothed
 * anchor), its motion (for the hand-over of an ID switch), and its state against every line and zone.
 */
import type { LineState } from './line-state.ts';
import type { NormalisedPoint } from './types.ts';
import type { ZoneState } from './zone-state.ts';

/** A box normalised to the picture: [x1, y1, x2, y2] in 0..1. */
export type NormalisedBox = [number, number, number, number];

/** One confirmed track in a frame: its id, its detection's label, score and box (image pixels [x1, y1, x2, y2]). */
export interface TrackedObject {
  trackId: number;
  label: string;
  score: number;
  /** The detection's box: what an event carries. */
  box: [number, number, number, number];
  /**
   * The tracker's own box for the track at this frame (its filtered estimate, pixels), when the caller has it
   * (`Tracker.predict(captureTimeMs)` right after the update): the anchor is taken from it, as is, rather than from
   * the detection's box averaged over `smoothingMs`. Less jitter for the same lag.
   */
  trackBox?: [number, number, number, number];
}

export interface TrackMemory {
  /** The track's current id (a hand-over gives the memory a new one). */
  trackId: number;
  label: string;
  firstSeenMs: number;
  lastSeenMs: number;
  /** The latest sighting, as it came. */
  last: TrackedObject;
  /** Sightings within the smoothing window of the latest (at least the latest), oldest first: the anchor's boxes (trackBox or box). */
  recent: Array<{ t: number; box: NormalisedBox }>;
  /** The latest sighting came with a trackBox: the anchor is its, unsmoothed. */
  filtered: boolean;
  /** The box's velocity (its centre's, normalised units per ms), smoothed over sightings. */
  velocity: NormalisedPoint;
  /** By rule index. */
  lines: Array<LineState | undefined>;
  zones: ZoneState[];
}

/** Sightings averaged at most, whatever the frame rate: bounds the work per object. */
const MAX_RECENT = 16;

export function normalisedBox(box: readonly number[], width: number, height: number): NormalisedBox {
  return [box[0]! / width, box[1]! / height, box[2]! / width, box[3]! / height];
}

const centre = (b: NormalisedBox): NormalisedPoint => [(b[0] + b[2]) / 2, (b[1] + b[3]) / 2];

export function newMemory(o: TrackedObject, box: NormalisedBox, t: number): TrackMemory {
  return {
    trackId: o.trackId,
    label: o.label,
    firstSeenMs: t,
    lastSeenMs: t,
    last: o,
    recent: [{ t, box }],
    filtered: o.trackBox !== undefined,
    velocity: [0, 0],
    lines: [],
    zones: [],
  };
}

/** Records a sighting at time t (not before the latest). */
export function see(m: TrackMemory, o: TrackedObject, box: NormalisedBox, t: number, smoothingMs: number): void {
  const dt = t - m.lastSeenMs;
  if (dt > 0) {
    const [x0, y0] = centre(m.recent.at(-1)!.box);
    const [x1, y1] = centre(box);
    m.velocity = [(m.velocity[0] + (x1 - x0) / dt) / 2, (m.velocity[1] + (y1 - y0) / dt) / 2];
  }
  m.last = o;
  m.filtered = o.trackBox !== undefined;
  m.lastSeenMs = Math.max(m.lastSeenMs, t);
  m.recent.push({ t, box });
  while (m.recent.length > 1 && (t - m.recent[0]!.t > smoothingMs || m.recent.length > MAX_RECENT)) m.recent.shift();
}

/** The box the anchor is taken from: the latest trackBox as is, or the mean of the recent detection boxes. */
export function smoothedBox(m: TrackMemory): NormalisedBox {
  if (m.filtered) return m.recent.at(-1)!.box;
  const sum: NormalisedBox = [0, 0, 0, 0];
  for (const r of m.recent) for (let k = 0; k < 4; k++) sum[k]! += r.box[k]!;
  const n = m.recent.length;
  return [sum[0] / n, sum[1] / n, sum[2] / n, sum[3] / n];
}

export interface HandOverOptions {
  /** Longest gap (ms) and farthest distance (normalised, box centres) of a hand-over. */
  lostMs: number;
  handoverDistance: number;
  /** A memory younger than this (seen over less time) hands nothing over: a flickering false alarm has no state to give. */
  minAgeMs: number;
}

/**
 * A memory seen in the previous frame, missed in this one only, is handed over only to a new track within this
 * fraction of the new box's width of where it would now be. Its track is still the tracker's (it coasts through
 * a missed frame), and a track confirmed in this frame was detected before, beside it: unless it is just where
 * the lost one would be (an immediate ID switch), it is another object, most often one that came out from
 * behind it, and gets a state of its own. (Chosen with bench:events seeds 101-110 and 111-200: 0.1 to 0.3 did
 * the same; with no such limit such objects lost their own crossings.)
 */
const JUST_MISSED_DISTANCE = 0.2;

/**
 * Pairs tracks seen for the first time with lost memories (not seen in this frame, same label, boxes of a like
 * height, old enough) whose box centre was, or moving as it was would now be, within `handoverDistance` (within
 * JUST_MISSED_DISTANCE of its width where the memory was seen in the previous frame, `previousMs`): nearest pairs
 * first, each at most once.
 */
export function handOverPairs(
  born: ReadonlyArray<{ o: TrackedObject; box: NormalisedBox }>,
  lost: readonly TrackMemory[],
  t: number,
  previousMs: number | undefined,
  options: HandOverOptions,
): Array<{ o: TrackedObject; m: TrackMemory }> {
  const pairs: Array<{ o: TrackedObject; m: TrackMemory; distance: number }> = [];
  for (const { o, box } of born) {
    const c = centre(box);
    const height = box[3] - box[1];
    for (const m of lost) {
      if (m.label !== o.label || m.lastSeenMs >= t || m.lastSeenMs - m.firstSeenMs < options.minAgeMs) continue;
      const last = m.recent.at(-1)!.box;
      const lastHeight = last[3] - last[1];
      if (height > 2 * lastHeight || lastHeight > 2 * height) continue;
      const gap = Math.min(t - m.lastSeenMs, options.lostMs);
      const [x, y] = centre(last);
      const moved = Math.hypot(c[0] - x - m.velocity[0] * gap, c[1] - y - m.velocity[1] * gap);
      if (m.lastSeenMs === previousMs) {
        if (moved <= JUST_MISSED_DISTANCE * (box[2] - box[0])) pairs.push({ o, m, distance: moved });
        continue;
      }
      const distance = Math.min(Math.hypot(c[0] - x, c[1] - y), moved);
      if (distance <= options.handoverDistance) pairs.push({ o, m, distance });
    }
  }
  pairs.sort((a, b) => a.distance - b.distance);
  const taken = new Set<TrackMemory>();
  const given = new Set<TrackedObject>();
  const out: Array<{ o: TrackedObject; m: TrackMemory }> = [];
  for (const { o, m } of pairs) {
    if (taken.has(m) || given.has(o)) continue;
    taken.add(m);
    given.add(o);
    out.push({ o, m });
  }
  return out;
}
