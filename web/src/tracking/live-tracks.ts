/**
 * The dashboard's tracking: every answer, from the gateway or from this device, feeds one Tracker
 * (`@sightline/shared/tracking`, the one the gateway runs too) under the capture time of the frame it
 * answers. The overlay then asks, for each video frame it draws, for the boxes at that frame's capture
 * time: every track predicted there, or the latest answer's boxes as they came, each with its track id.
 *
 * Boxes are tracked in one picture space, the first answer's image size since the last reset: a change
 * of frame size rescales later answers into it instead of breaking every track. Reset when the picture
 * or the model changes (the controller decides).
 */
import type { Detection } from '@sightline/shared/protocol';
import { Tracker, type FrameSize, type TrackedBox } from '@sightline/shared/tracking';
import { Signal } from '../events/signal.ts';
import { STALE_AFTER_MS, type OverlayItem, type OverlayScene, type Point } from '../overlay/overlay-scene.ts';
import type { FrameOutcome, SentFrame } from '../frame-routes/frame-outcome.ts';
import type { Clock } from '../time/clock.ts';
import type { BoxMode } from './box-mode.ts';
import { LeadWindow } from './lead-window.ts';

/** An answer's detections (in its own image's pixels) and the confirmed track each belongs to. */
export interface IdentifiedFrame {
  frame: SentFrame;
  width: number;
  height: number;
  detections: readonly Detection[];
  /** Per detection, in order: its track's id, undefined while no confirmed track holds it. */
  trackIds: readonly (number | undefined)[];
}

export interface ClassCount {
  label: string;
  count: number;
}

/** What the panel shows. */
export interface TrackingSummary {
  /**
   * Median lead of the frames drawn in the last second while the latest answer was fresh (LeadWindow),
   * ms: in predicted mode how far the boxes were moved on (at most the tracker's `maxPredictionMs`), in
   * raw mode how far they lag. Absent while the stream is paused or stalled.
   */
  leadMs?: number;
  /** Unique objects seen since the last reset: tracks confirmed (the tracker's `confirmedCount`). */
  unique: number;
  /** Confirmed tracks visible at the latest answer, per label, most first. */
  counts: readonly ClassCount[];
  /** The latest answer's track ids, per detection (the detections list shows them). */
  latest?: { frameId: number; trackIds: readonly (number | undefined)[] };
}

interface LatestAnswer {
  frameId: number;
  capturedAt: number;
  receivedAt: number;
  /** In the tracking space. */
  detections: readonly Detection[];
  trackIds: readonly (number | undefined)[];
}

export interface LiveTracksOptions {
  clock: Pick<Clock, 'now'>;
  tracker?: Tracker;
}

/** Detections of a `from`-sized image, in the pixels of a `to`-sized one (same picture, other scale). */
export function toSpace(detections: readonly Detection[], from: FrameSize, to: FrameSize): readonly Detection[] {
  if (from.width === to.width && from.height === to.height) return detections;
  const sx = to.width / from.width;
  const sy = to.height / from.height;
  return detections.map((d) => ({ ...d, box: [d.box[0] * sx, d.box[1] * sy, d.box[2] * sx, d.box[3] * sy] }));
}

export class LiveTracks {
  /** The tracks changed (an answer, a reset): the overlay and the panel redraw. */
  readonly changed = new Signal<void>();
  /** Every answer with detections, each detection with its track id (the detection log). */
  readonly identified = new Signal<IdentifiedFrame>();
  private readonly tracker: Tracker;
  private readonly leads = new LeadWindow();
  private space: FrameSize | undefined;
  private answer: LatestAnswer | undefined;
  private trails = new Map<number, readonly Point[]>();
  private counts: ClassCount[] = [];
  private changes = 0;
  private leadCountedFor: number | undefined;

  constructor(private readonly options: LiveTracksOptions) {
    this.tracker = options.tracker ?? new Tracker();
  }

  /** Bumped on every change: the overlay redraws when it moves. */
  get version(): number {
    return this.changes;
  }

  /** A frame settled on some route: its detections, if any, update the tracks at the frame's capture time. */
  record(outcome: FrameOutcome): void {
    if (outcome.kind !== 'ok') return;
    const { frame, result, answeredAt } = outcome;
    const space = (this.space ??= { width: result.width, height: result.height });
    const detections = toSpace(result.detections, result, space);
    const latestBefore = this.tracker.latestUpdateMs;
    // Ids only for an answer the tracker took: one overtaken by a later frame's answer is ignored by it.
    const trackIds = this.tracker.identify(detections, frame.capturedAt);
    this.identified.emit({ frame, width: result.width, height: result.height, detections: result.detections, trackIds });
    if (latestBefore !== undefined && frame.capturedAt < latestBefore) return;
    const visible = this.tracker.predict(frame.capturedAt, space);
    this.trails = new Map(visible.map((track) => [track.id, track.trail]));
    this.counts = countByLabel(visible);
    this.answer = { frameId: frame.id, capturedAt: frame.capturedAt, receivedAt: answeredAt, detections, trackIds };
    this.bump();
  }

  /** Forgets every track, the unique count and the latest answer (another picture, another model). */
  reset(): void {
    this.tracker.reset();
    this.leads.clear();
    this.space = undefined;
    this.answer = undefined;
    this.trails = new Map();
    this.counts = [];
    this.leadCountedFor = undefined;
    this.bump();
  }

  /**
   * What to draw over the video frame taken at `displayAt` (page clock): in `predicted` mode every
   * visible track moved on to that moment, in `raw` mode the latest answer's boxes. In both, the latest
   * answer's detections no confirmed track holds (new objects, scores below the tracker's birth score)
   * are drawn as they came, without an id: nothing the model found disappears. Each new `displayAt`
   * counts as a frame drawn, for the lead shown in the summary, while the latest answer is fresh.
   */
  sceneAt(mode: BoxMode, displayAt: number): OverlayScene | undefined {
    const { answer, space } = this;
    if (!answer || !space) return undefined;
    const leadMs = displayAt - answer.capturedAt;
    const now = this.options.clock.now();
    if (displayAt !== this.leadCountedFor && now - answer.receivedAt <= STALE_AFTER_MS) {
      this.leadCountedFor = displayAt;
      // Predicted boxes are moved on by at most maxPredictionMs: say how far they really were.
      const limit = this.tracker.options.maxPredictionMs;
      this.leads.add(now, mode === 'predicted' ? Math.max(-limit, Math.min(limit, leadMs)) : leadMs);
    }
    const raw = this.rawItems(answer);
    const items = mode === 'predicted' ? [...this.tracker.predict(displayAt, space).map(predictedItem), ...raw.filter(untracked)] : raw;
    return { mode, width: space.width, height: space.height, items, receivedAt: answer.receivedAt, leadMs };
  }

  summary(): TrackingSummary {
    const leadMs = this.leads.median(this.options.clock.now());
    return {
      ...(leadMs === undefined ? {} : { leadMs }),
      unique: this.tracker.confirmedCount,
      counts: this.counts,
      ...(this.answer ? { latest: { frameId: this.answer.frameId, trackIds: this.answer.trackIds } } : {}),
    };
  }

  private rawItems(answer: LatestAnswer): OverlayItem[] {
    return answer.detections.map((detection, i) => {
      const trackId = answer.trackIds[i];
      const { label, classId, score, box } = detection;
      const trail = trackId === undefined ? [] : (this.trails.get(trackId) ?? []);
      return trackId === undefined ? { label, classId, score, box, trail } : { trackId, label, classId, score, box, trail };
    });
  }

  private bump(): void {
    this.changes++;
    this.changed.emit();
  }
}

function untracked(item: OverlayItem): boolean {
  return item.trackId === undefined;
}

/** A predicted track as drawn: its trail runs on to the box's centre. */
function predictedItem(track: TrackedBox): OverlayItem {
  const { id, label, classId, score, box } = track;
  const centre: Point = [(box[0] + box[2]) / 2, (box[1] + box[3]) / 2];
  return { trackId: id, label, classId, score, box, trail: [...track.trail, centre] };
}

function countByLabel(tracks: readonly TrackedBox[]): ClassCount[] {
  const counts = new Map<string, number>();
  for (const track of tracks) counts.set(track.label, (counts.get(track.label) ?? 0) + 1);
  return [...counts].map(([label, count]) => ({ label, count })).sort((a, b) => b.count - a.count || a.label.localeCompare(b.label));
}
