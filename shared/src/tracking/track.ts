/**
 * One object followed over time: its Kalman filter over (centre x, centre y, width, height), its
 * history (hits, first and last detection) and the public snapshots the tracker hands out.
 */
import type { Detection } from '../schemas.ts';
import { ConstantVelocityKalman } from './kalman.ts';
import type { TrackerOptions } from './options.ts';

/** [x1, y1, x2, y2] in image pixels, x1 < x2, y1 < y2: the protocol's box. */
export type Box = Detection['box'];
export type Point = readonly [x: number, y: number];

/** A track's box at some time, as drawn. */
export interface TrackedBox {
  /** Stable for the track's life, 1, 2, 3... in order of confirmation; -1 while tentative. */
  id: number;
  label: string;
  classId: number;
  /** Score of the track's latest detection. */
  score: number;
  box: Box;
  /** Of the box's centre, pixels per second. */
  velocity: readonly [vx: number, vy: number];
  /** Past centres (after each detection), oldest first, at most `trailLength`. Shared, never mutated. */
  trail: readonly Point[];
}

/** A live track after an update. */
export interface Track extends TrackedBox {
  confirmed: boolean;
  /** Detections matched to it so far. */
  hits: number;
  /** From its first detection to the latest update, ms. */
  ageMs: number;
  /** From its latest detection to the latest update, ms (0 when detected in it). */
  missedMs: number;
}

/** The smallest width or height a box is given, so noise scales and boxes never collapse. */
const MIN_SIZE = 1;

const CX = 0;
const CY = 1;
const W = 2;
const H = 3;

export class TrackState {
  /** -1 until confirmed. */
  id = -1;
  readonly label: string;
  readonly classId: number;
  score: number;
  hits = 1;
  /** Of `hits`, those with a high score (the detection a track is born from always has one). */
  highHits = 1;
  readonly firstHitMs: number;
  lastHitMs: number;
  /** The time the filter's state is at. */
  timeMs: number;
  trail: readonly Point[];
  /** The box predicted for the update in progress (or the latest state). */
  predicted: Box;
  /** The detection the track was last corrected with (or born from). */
  detection: Detection;
  private readonly filter: ConstantVelocityKalman;
  private readonly options: TrackerOptions;
  /** Scratch per-axis noise, reused. */
  private readonly noise = new Float64Array(4);
  private readonly measurement = new Float64Array(4);

  constructor(detection: Detection, timeMs: number, options: TrackerOptions) {
    this.options = options;
    this.label = detection.label;
    this.classId = detection.classId;
    this.score = detection.score;
    this.detection = detection;
    this.firstHitMs = this.lastHitMs = this.timeMs = timeMs;
    const m = toMeasurement(detection.box, this.measurement);
    const scales = [m[W]!, m[H]!, m[W]!, m[H]!];
    const positionVariances = scales.map((s) => (options.measurementNoise * s) ** 2);
    const velocityVariances = scales.map((s) => (options.initialVelocity * s) ** 2);
    this.filter = new ConstantVelocityKalman(m, positionVariances, velocityVariances);
    this.predicted = this.box();
    this.trail = [[m[CX]!, m[CY]!]];
  }

  get confirmed(): boolean {
    return this.id >= 0;
  }

  /** Moves the filter to `timeMs` and keeps the box it predicts there in `predicted`. */
  predictTo(timeMs: number): void {
    const dt = (timeMs - this.timeMs) / 1000;
    if (dt > 0) {
      const { velocityChange, sizeChange } = this.options;
      const w = this.size(W);
      const h = this.size(H);
      this.noise[CX] = (velocityChange * w) ** 2;
      this.noise[CY] = (velocityChange * h) ** 2;
      this.noise[W] = (sizeChange * w) ** 2;
      this.noise[H] = (sizeChange * h) ** 2;
      this.filter.predict(dt, this.noise);
      this.timeMs = timeMs;
    }
    this.predicted = this.box();
  }

  /** Corrects the track with its detection at the current time. */
  correct(detection: Detection): void {
    const m = toMeasurement(detection.box, this.measurement);
    const r = this.options.measurementNoise;
    this.noise[CX] = (r * m[W]!) ** 2;
    this.noise[CY] = (r * m[H]!) ** 2;
    this.noise[W] = (r * m[W]!) ** 2;
    this.noise[H] = (r * m[H]!) ** 2;
    this.filter.update(m, this.noise);
    this.score = detection.score;
    this.detection = detection;
    this.hits++;
    if (detection.score >= this.options.highScore) this.highHits++;
    this.lastHitMs = this.timeMs;
    this.predicted = this.box();
    const centre: Point = [this.filter.position(CX), this.filter.position(CY)];
    const keep = this.options.trailLength;
    this.trail = this.trail.length < keep ? [...this.trail, centre] : [...this.trail.slice(this.trail.length - keep + 1), centre];
  }

  /** The box `dt` seconds after the filter's time, the motion held (the filter is unchanged). */
  box(dt = 0): Box {
    const cx = this.filter.extrapolate(CX, dt);
    const cy = this.filter.extrapolate(CY, dt);
    const w = Math.max(MIN_SIZE, this.filter.extrapolate(W, dt));
    const h = Math.max(MIN_SIZE, this.filter.extrapolate(H, dt));
    return [cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2];
  }

  velocity(): readonly [number, number] {
    return [this.filter.velocity(CX), this.filter.velocity(CY)];
  }

  tracked(box: Box): TrackedBox {
    return { id: this.id, label: this.label, classId: this.classId, score: this.score, box, velocity: this.velocity(), trail: this.trail };
  }

  snapshot(nowMs: number): Track {
    return {
      ...this.tracked(this.predicted),
      confirmed: this.confirmed,
      hits: this.hits,
      ageMs: nowMs - this.firstHitMs,
      missedMs: nowMs - this.lastHitMs,
    };
  }

  private size(axis: number): number {
    return Math.max(MIN_SIZE, this.filter.position(axis));
  }
}

function toMeasurement(box: Box, into: Float64Array): Float64Array {
  const w = Math.max(MIN_SIZE, box[2] - box[0]);
  const h = Math.max(MIN_SIZE, box[3] - box[1]);
  into[CX] = (box[0] + box[2]) / 2;
  into[CY] = (box[1] + box[3]) / 2;
  into[W] = w;
  into[H] = h;
  return into;
}
