/**
 * The rule engine: one stream's confirmed tracks, frame after frame, in; line crossings and zone entries and exits
 * out. Pure TypeScript (the gateway, `pnpm events` and the dashboard share it); time is the frames' `capturedAt`
 * (ms), every option is in ms, in normalised picture units or in fractions of a box, never in frames.
 *
 * Robust by construction (line-state.ts and zone-state.ts: one track against one rule; track-memory.ts: one track):
 * - **jitter**: a track's anchor is taken from its tracker's filtered box (`trackBox`, when the caller gives it), or
 *   from its detection boxes averaged over `smoothingMs`; a side (inside/outside) changes only once that anchor is
 *   clear of the line (the zone's edge) by the band: `bandBoxFraction` of the box's extent across the line (a
 *   detector's boxes shake in proportion to their size), at least `band`. A box shaking on a line counts once, when
 *   it leaves it;
 * - **missed detections, a track lost and found**: what a track has done is kept for `lostMs` after its last
 *   sighting (the tracker's own `maxLostMs` by default: as long as it may come back under its id), and a crossing
 *   is judged from the last point seen on the old side, however many frames are missing in between;
 * - **ID switches**: a track seen for the first time takes over the state of a track of the same label lost within
 *   `lostMs` whose box was (or, moving as it was, would now be) within `handoverDistance`: the object the tracker
 *   lost and found again under a new id does not count again, and a crossing made during the switch counts once.
 *   A track seen in the previous frame, missed in this one only, is handed over only to a new track just where it
 *   would be (a fifth of its width): one merely beside it is another object, come out from behind it;
 * - **false alarms**: a track must be seen clear of the band on one side before it can cross to the other, the step
 *   must cross the segment itself, and a crossing counts only once the track is `minAgeMs` old (a younger track's
 *   waits, and is dropped if it crosses back): a track born on the far side, or a box that flickers into being
 *   near the line, counts nothing.
 *
 * A zone's object is inside until seen outside, or until it is lost for good (`lostMs` without a sighting: its
 * `zone_leave` then carries its last box and the frame that found it gone); `end` (the stream ending) makes every
 * object still inside a zone leave it, so each enter has its leave. Bounded: at most `maxObjects` tracks are
 * remembered (the longest unseen is forgotten first, leaving its zones).
 */
import { DEFAULT_TRACKER_OPTIONS } from '../tracking/options.ts';
import { anchorPoint, type Segment } from './geometry.ts';
import { newLineState, observeLine } from './line-state.ts';
import { parseCameraRules } from './rules-schema.ts';
import { handOverPairs, newMemory, normalisedBox, see, smoothedBox, type TrackedObject, type TrackMemory } from './track-memory.ts';
import {
  DEFAULT_ANCHOR,
  type Anchor,
  type CameraRules,
  type Direction,
  type EventType,
  type NormalisedPoint,
  type RuleEvent,
  type RuleFilter,
} from './types.ts';
import { observeZone } from './zone-state.ts';

export type { TrackedObject } from './track-memory.ts';

/** One frame of a stream: its confirmed tracks (a track missed in the frame is absent) and the picture's size. */
export interface FrameObservation {
  /** The frame's `ts` as the client sent it: the engine's clock (ms, in capture order). */
  capturedAt: number;
  /** When the gateway detected it (ms since the epoch). */
  detectedAt: number;
  /** The picture's size, pixels: boxes are normalised by it. */
  width: number;
  height: number;
  objects: readonly TrackedObject[];
  /** The frame's number, where the input is a file. */
  frame?: number;
}

export interface RuleEngineOptions {
  /** Hysteresis: a side or inside/outside changes only this fraction of the box's extent across the line clear of it. */
  bandBoxFraction: number;
  /** ... and at least this far (normalised distance). */
  band: number;
  /**
   * A track's anchor is that of its detection boxes' mean over this long (ms, the latest sighting included; 0: the
   * latest). Not for objects that come with their tracker's own box (`trackBox`): that one is already filtered.
   */
  smoothingMs: number;
  /** A track's state is kept this long after its last sighting (ms); a zone's object leaves it then. */
  lostMs: number;
  /** A new track takes over a lost track's state when its box centre is this close (normalised) to where that one would be. */
  handoverDistance: number;
  /**
   * A track seen for less than this (ms, from its first sighting) counts no crossing yet: one it makes waits until it
   * is this old and counts then if the track has not crossed back; nor does it hand its state over when lost.
   */
  minAgeMs: number;
  /** At most this many tracks remembered at once (the longest unseen forgotten first). */
  maxObjects: number;
}

/**
 * Chosen on `pnpm bench:events` (bench/events/README.md) with seeds 101-110, not the ones reported: a band of 8% of
 * the box across the line counts people walking across as well as a smaller one, a frame or two after they cross,
 * and keeps people standing on the line from counting again and again (with the tracker's boxes, `trackBox`; the
 * detections' boxes averaged over 90 ms, about three frames at 25 fps, come close).
 */
export const DEFAULT_RULE_ENGINE_OPTIONS: Readonly<RuleEngineOptions> = Object.freeze({
  bandBoxFraction: 0.08,
  band: 0.003,
  smoothingMs: 90,
  lostMs: DEFAULT_TRACKER_OPTIONS.maxLostMs,
  handoverDistance: 0.08,
  minAgeMs: 100,
  maxObjects: 1000,
});

export function resolveRuleEngineOptions(options: Partial<RuleEngineOptions> = {}): RuleEngineOptions {
  const resolved = { ...DEFAULT_RULE_ENGINE_OPTIONS, ...options };
  for (const [name, value] of Object.entries(resolved)) {
    if (!Number.isFinite(value) || value < 0)
      throw new RangeError(`rule engine option ${name} must be a finite number >= 0 (got ${value})`);
  }
  if (!Number.isInteger(resolved.maxObjects) || resolved.maxObjects < 1)
    throw new RangeError('rule engine option maxObjects must be an integer >= 1');
  return resolved;
}

interface PreparedRule {
  name: string;
  anchor: Anchor;
  labels: ReadonlySet<string> | undefined;
  minScore: number;
}

const prepare = (name: string, filter: RuleFilter): PreparedRule => ({
  name,
  anchor: filter.anchor ?? DEFAULT_ANCHOR,
  labels: filter.labels ? new Set(filter.labels) : undefined,
  minScore: filter.minScore ?? 0,
});

const applies = (rule: PreparedRule, o: TrackedObject) =>
  (rule.labels === undefined || rule.labels.has(o.label)) && o.score >= rule.minScore;

type At = Pick<FrameObservation, 'capturedAt' | 'detectedAt' | 'frame'>;

export class RuleEngine {
  readonly rules: CameraRules;
  readonly options: RuleEngineOptions;
  /** `normal`: the absolute components of the line's unit normal (how much of a box's width and height lie across it). */
  private readonly lines: Array<PreparedRule & Segment & { normal: [number, number] }>;
  private readonly zones: Array<PreparedRule & { polygon: NormalisedPoint[] }>;
  /** Every remembered track by its current id, in order of last sighting (a Map keeps insertion order). */
  private readonly memory = new Map<number, TrackMemory>();
  /** `capturedAt` of the previous frame. */
  private previousMs: number | undefined;

  /** Throws RulesError if `rules` are not valid (see parseCameraRules), RangeError for a bad option. */
  constructor(
    readonly camera: string,
    rules: CameraRules,
    options: Partial<RuleEngineOptions> = {},
  ) {
    this.rules = parseCameraRules(rules);
    this.options = resolveRuleEngineOptions(options);
    this.lines = this.rules.lines.map((l) => {
      const length = Math.hypot(l.to[0] - l.from[0], l.to[1] - l.from[1]);
      const normal: [number, number] = [Math.abs(l.to[1] - l.from[1]) / length, Math.abs(l.to[0] - l.from[0]) / length];
      return { ...prepare(l.name, l), from: l.from, to: l.to, normal };
    });
    this.zones = this.rules.zones.map((z) => ({ ...prepare(z.name, z), polygon: z.polygon }));
  }

  /** Tracks remembered now (seen within `lostMs`). */
  get trackedCount(): number {
    return this.memory.size;
  }

  /** The events one frame triggers. Frames come in capture order, every frame of the stream, with its confirmed tracks. */
  update(frame: FrameObservation): RuleEvent[] {
    const events: RuleEvent[] = [];
    const t = frame.capturedAt;
    const previousMs = this.previousMs;
    this.previousMs = t;
    for (const m of [...this.memory.values()]) if (t - m.lastSeenMs > this.options.lostMs) this.forget(m, frame, events);

    const seen = new Map<number, { o: TrackedObject; box: ReturnType<typeof normalisedBox> }>();
    for (const o of frame.objects)
      if (!seen.has(o.trackId)) seen.set(o.trackId, { o, box: normalisedBox(o.trackBox ?? o.box, frame.width, frame.height) });
    const born = [...seen.values()].filter(({ o }) => !this.memory.has(o.trackId));
    if (born.length > 0) {
      const lost = [...this.memory.values()].filter((m) => !seen.has(m.trackId));
      for (const { o, m } of handOverPairs(born, lost, t, previousMs, this.options)) {
        this.memory.delete(m.trackId);
        m.trackId = o.trackId;
        this.memory.set(o.trackId, m);
      }
    }

    for (const { o, box } of seen.values()) {
      let m = this.memory.get(o.trackId);
      if (m) {
        see(m, o, box, t, this.options.smoothingMs);
        this.memory.delete(o.trackId); // re-inserted last: the map stays ordered by last sighting
      } else {
        while (this.memory.size >= this.options.maxObjects) this.forget(this.memory.values().next().value!, frame, events);
        m = newMemory(o, box, t);
      }
      this.memory.set(o.trackId, m);
      this.observe(m, o, frame, events);
    }
    return events;
  }

  /** The stream ended: every object still inside a zone leaves it (its last box, these times); everything is forgotten. */
  end(detectedAt: number, capturedAt: number, frame?: number): RuleEvent[] {
    const events: RuleEvent[] = [];
    const at: At = { capturedAt, detectedAt, ...(frame === undefined ? {} : { frame }) };
    for (const m of [...this.memory.values()]) this.forget(m, at, events);
    return events;
  }

  private observe(m: TrackMemory, o: TrackedObject, frame: FrameObservation, events: RuleEvent[]): void {
    const { band, bandBoxFraction, minAgeMs } = this.options;
    const young = frame.capturedAt - m.firstSeenMs < minAgeMs;
    const box = smoothedBox(m);
    const w = box[2] - box[0];
    const h = box[3] - box[1];
    this.lines.forEach((line, i) => {
      if (!applies(line, o)) return;
      const state = (m.lines[i] ??= newLineState());
      const lineBand = Math.max(band, bandBoxFraction * (line.normal[0] * w + line.normal[1] * h));
      let direction = observeLine(state, line, lineBand, anchorPoint(box, line.anchor, 1, 1));
      if (state.pending) {
        // Crossed back while waiting: neither counts. Old enough and still across: the waiting one counts now.
        if (direction) direction = state.pending = undefined;
        else if (!young) [direction, state.pending] = [state.pending, undefined];
      } else if (direction && young) {
        [state.pending, direction] = [direction, undefined];
      }
      if (direction) events.push(this.event(line.name, 'line_cross', o, frame, direction));
    });
    this.zones.forEach((zone, i) => {
      if (!applies(zone, o)) return;
      const zoneBand = Math.max(band, bandBoxFraction * Math.min(w, h));
      const { state, change } = observeZone(m.zones[i], zone.polygon, zoneBand, anchorPoint(box, zone.anchor, 1, 1));
      m.zones[i] = state;
      if (change) events.push(this.event(zone.name, change === 'enter' ? 'zone_enter' : 'zone_leave', o, frame));
    });
  }

  /** Drops a track's state; each zone it was inside it leaves now (its last box, these times). */
  private forget(m: TrackMemory, at: At, events: RuleEvent[]): void {
    this.memory.delete(m.trackId);
    m.zones.forEach((state, i) => {
      if (state === 'inside') events.push(this.event(this.zones[i]!.name, 'zone_leave', { ...m.last, trackId: m.trackId }, at));
    });
  }

  private event(rule: string, type: EventType, o: TrackedObject, at: At, direction?: Direction): RuleEvent {
    return {
      camera: this.camera,
      rule,
      type,
      ...(direction ? { direction } : {}),
      trackId: o.trackId,
      label: o.label,
      score: o.score,
      box: [o.box[0], o.box[1], o.box[2], o.box[3]],
      capturedAt: at.capturedAt,
      detectedAt: at.detectedAt,
      ...(at.frame === undefined ? {} : { frame: at.frame }),
    };
  }
}
