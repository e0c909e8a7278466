/**
 * The multi-object tracker: ByteTrack's association on Kalman-predicted boxes, per class, with birth
 * and death in time. One instance follows one video stream.
 *
 * Each `update(detections, captureTimeMs)`:
 *  1. moves every track's filter to the capture time (dt from timestamps, so irregular and dropped
 *     frames are handled by the motion model itself);
 *  2. per class: pairs high-score detections with the tracks, confirmed and tentative together (optimal
 *     assignment on IoU with the predicted boxes: an object that comes out from behind another keeps
 *     its own detections rather than its neighbour's track taking them); then low-score detections
 *     with the confirmed tracks still unpaired that were detected within `lowScoreMaxGapMs`
 *     (ByteTrack's second stage, which takes only those detected in the previous update, widened to
 *     the tracks still coasting: an object half hidden scores low, often for several frames in a row,
 *     but is still the object); then the low-score detections left with the unpaired tentative tracks
 *     (a new object hard to see keeps its tentative track, and confirms it with more detections);
 *  3. corrects the paired tracks, starts a tentative track for each high-score detection left over,
 *     confirms tentative tracks detected long enough, drops tracks missed too long.
 *
 * `predict(displayTimeMs)` then gives every visible confirmed track's box extrapolated to another
 * time: the overlay asks for the capture time of the video frame on screen, which is later than the
 * capture time of the latest answer by the latency, so boxes are drawn where the objects are now.
 */
import { iou } from '../model/nms.ts';
import type { Detection } from '../schemas.ts';
import { assignByScore } from './assignment.ts';
import { resolveTrackerOptions, type TrackerOptions } from './options.ts';
import { TrackState, type Track, type TrackedBox } from './track.ts';

/** The size of the image the boxes are in, pixels. */
export interface FrameSize {
  width: number;
  height: number;
}

interface ClassFrame {
  tracks: TrackState[];
  high: Detection[];
  low: Detection[];
}

export class Tracker {
  readonly options: TrackerOptions;
  private tracks: TrackState[] = [];
  private nextId = 1;
  private latestMs: number | undefined;

  constructor(options: Partial<TrackerOptions> = {}) {
    this.options = resolveTrackerOptions(options);
  }

  /** Capture time of the latest update, ms (undefined before the first). */
  get latestUpdateMs(): number | undefined {
    return this.latestMs;
  }

  /** Tracks confirmed so far, live or gone: the unique objects seen since the start (or `reset`). */
  get confirmedCount(): number {
    return this.nextId - 1;
  }

  /**
   * Feeds the detections of the frame captured at `captureTimeMs` (any monotonic clock in ms; the
   * frame's own capture time, not the answer's arrival) and returns every live track, tentative ones
   * included. An empty list is an update too: the frame was seen and nothing was in it. A frame
   * older than the latest update (an answer overtaken by a later one) is ignored.
   */
  update(detections: readonly Detection[], captureTimeMs: number): Track[] {
    if (!Number.isFinite(captureTimeMs)) throw new RangeError('captureTimeMs must be a finite number');
    if (this.latestMs !== undefined && captureTimeMs < this.latestMs) return this.snapshots();
    const previousMs = this.latestMs;
    this.latestMs = captureTimeMs;
    for (const track of this.tracks) track.predictTo(captureTimeMs);

    const born: TrackState[] = [];
    for (const frame of this.byClass(detections).values()) born.push(...this.associate(frame, previousMs, captureTimeMs));

    const o = this.options;
    this.tracks = this.tracks.filter((t) => captureTimeMs - t.lastHitMs <= (t.confirmed ? o.maxLostMs : o.tentativeMaxGapMs));
    for (const track of this.tracks) {
      if (!track.confirmed && confirms(track, o)) track.id = this.nextId++;
    }
    this.tracks.push(...born);
    return this.snapshots();
  }

  /**
   * `update`, then for each of `detections` the id of the confirmed track it belongs to, undefined
   * where it belongs to none yet (a tentative track, a low score, or a frame older than the latest).
   */
  identify(detections: readonly Detection[], captureTimeMs: number): Array<number | undefined> {
    this.update(detections, captureTimeMs);
    const ids = new Map<Detection, number>();
    for (const track of this.tracks) if (track.confirmed && track.lastHitMs === captureTimeMs) ids.set(track.detection, track.id);
    return detections.map((d) => ids.get(d));
  }

  /**
   * Every confirmed track detected within `maxCoastMs` of the latest update, its box extrapolated
   * to `displayTimeMs` (at most `maxPredictionMs` away from the latest update). With the latest
   * update's own time, the filtered boxes.
   *
   * With the `frame` size (the image the detections' pixels refer to), a track missed in the latest
   * update is left out once its box reaches past the frame's edge: objects leave the picture at its
   * edges, and one no longer detected there has most likely left rather than been hidden.
   */
  predict(displayTimeMs: number, frame?: FrameSize): TrackedBox[] {
    if (this.latestMs === undefined) return [];
    const o = this.options;
    const dt = Math.max(-o.maxPredictionMs, Math.min(o.maxPredictionMs, displayTimeMs - this.latestMs)) / 1000;
    const out: TrackedBox[] = [];
    for (const track of this.tracks) {
      if (!track.confirmed) continue;
      const missedMs = this.latestMs - track.lastHitMs;
      if (missedMs > o.maxCoastMs) continue;
      const box = track.box(dt);
      if (missedMs > 0 && frame && (box[0] < 0 || box[1] < 0 || box[2] > frame.width || box[3] > frame.height)) continue;
      out.push(track.tracked(box));
    }
    return out;
  }

  /** Forgets every track and restarts ids at 1 (a new video). */
  reset(): void {
    this.tracks = [];
    this.nextId = 1;
    this.latestMs = undefined;
  }

  private snapshots(): Track[] {
    const now = this.latestMs ?? 0;
    return this.tracks.map((t) => t.snapshot(now));
  }

  private byClass(detections: readonly Detection[]): Map<number, ClassFrame> {
    const frames = new Map<number, ClassFrame>();
    const frame = (classId: number) => {
      let f = frames.get(classId);
      if (!f) frames.set(classId, (f = { tracks: [], high: [], low: [] }));
      return f;
    };
    for (const track of this.tracks) frame(track.classId).tracks.push(track);
    for (const d of detections) {
      if (d.score >= this.options.highScore) frame(d.classId).high.push(d);
      else if (d.score >= this.options.lowScore) frame(d.classId).low.push(d);
    }
    return frames;
  }

  /** One class's association; returns the tracks it starts. */
  private associate(frame: ClassFrame, previousMs: number | undefined, nowMs: number): TrackState[] {
    const o = this.options;
    const tracks = frame.tracks;

    const first = pair(tracks, frame.high, (t) => (t.confirmed ? o.matchIou : o.tentativeMatchIou));
    const unpaired = first.unmatchedRows.map((r) => tracks[r]!);
    const coasting = unpaired.filter((t) => t.confirmed && (t.lastHitMs === previousMs || nowMs - t.lastHitMs <= o.lowScoreMaxGapMs));
    const second = pair(coasting, frame.low, () => o.lowScoreMatchIou);
    const tentative = unpaired.filter((t) => !t.confirmed);
    const leftLow = second.unmatchedCols.map((c) => frame.low[c]!);
    const third = pair(tentative, leftLow, () => o.lowScoreMatchIou);

    for (const [r, c] of first.matches) tracks[r]!.correct(frame.high[c]!);
    for (const [r, c] of second.matches) coasting[r]!.correct(frame.low[c]!);
    for (const [r, c] of third.matches) tentative[r]!.correct(leftLow[c]!);

    const born: TrackState[] = [];
    for (const c of first.unmatchedCols) {
      const d = frame.high[c]!;
      if (d.score >= o.newTrackScore) born.push(new TrackState(d, nowMs, o));
    }
    return born;
  }
}

/**
 * A tentative track is confirmed once detected over `confirmAfterMs`: twice with a high score (its birth's
 * and one more), or `confirmAfterHits` times with low scores among them.
 */
function confirms(track: TrackState, o: TrackerOptions): boolean {
  if (track.lastHitMs - track.firstHitMs < o.confirmAfterMs) return false;
  return track.hits >= 2 && (track.highHits >= 2 || track.hits >= o.confirmAfterHits);
}

/** Optimal pairing of tracks (by predicted box) with detections, pairs of IoU >= the track's `minIou` only. */
function pair(tracks: readonly TrackState[], detections: readonly Detection[], minIou: (track: TrackState) => number) {
  const rows = tracks.length;
  const cols = detections.length;
  const overlap = new Float64Array(rows * cols);
  let least = Infinity;
  for (let r = 0; r < rows; r++) {
    const track = tracks[r]!;
    const box = track.predicted;
    const own = minIou(track);
    least = Math.min(least, own);
    for (let c = 0; c < cols; c++) {
      const value = iou(box, detections[c]!.box);
      // Under the track's own threshold: not a pair (-1 is under every threshold, all being >= 0).
      overlap[r * cols + c] = value >= own ? value : -1;
    }
  }
  return assignByScore(overlap, rows, cols, Number.isFinite(least) ? least : 0);
}
