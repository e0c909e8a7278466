/**
 * Every detection of every answered frame with the track it belongs to, for the exports: one row per
 * detection (a frame's sample is one row per frame, metrics/frame-sample.ts; `frameId` joins them).
 * Kept up to a cap, the oldest going first, like the samples.
 */
import type { Detection } from '@sightline/shared/protocol';
import { roundTo } from '@sightline/shared/stats';
import { Signal } from '../events/signal.ts';
import type { SentFrame } from '../frame-routes/frame-outcome.ts';
import type { FrameRoute } from '../frame-routes/run-on.ts';

export interface DetectionRow {
  /** The frame's message id: the `id` of its sample. */
  frameId: number;
  path: FrameRoute;
  /** When the frame was taken, wall clock, ms since the epoch. */
  capturedAt: number;
  /** The dashboard's track for it (stable per object in a session); null while no confirmed track holds it. */
  trackId: number | null;
  label: string;
  classId: number;
  score: number;
  /** The box in pixels of the frame as sent (`width` x `height`). */
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  width: number;
  height: number;
}

/** An answer's detections with their track ids (tracking/live-tracks.ts IdentifiedFrame). */
export interface IdentifiedDetections {
  frame: Pick<SentFrame, 'id' | 'path' | 'capturedAt'>;
  width: number;
  height: number;
  detections: readonly Detection[];
  trackIds: readonly (number | undefined)[];
}

/** One row per detection; `timeOrigin` (performance.timeOrigin) turns capture times into wall-clock times. */
export function detectionRows(answer: IdentifiedDetections, timeOrigin: number): DetectionRow[] {
  const { frame, width, height } = answer;
  const capturedAt = roundTo(timeOrigin + frame.capturedAt, 3);
  return answer.detections.map((detection, i) => {
    const [x1, y1, x2, y2] = detection.box;
    return {
      frameId: frame.id,
      path: frame.path,
      capturedAt,
      trackId: answer.trackIds[i] ?? null,
      label: detection.label,
      classId: detection.classId,
      score: detection.score,
      x1,
      y1,
      x2,
      y2,
      width,
      height,
    };
  });
}

export const DEFAULT_MAX_DETECTIONS = 500_000;

export class DetectionLog {
  /** Rows came in, or the log was emptied. */
  readonly changed = new Signal<void>();
  private rows: DetectionRow[] = [];
  private discardedCount = 0;
  private readonly maxRows: number;

  constructor(maxRows = DEFAULT_MAX_DETECTIONS) {
    this.maxRows = Math.max(1, maxRows);
  }

  get size(): number {
    return Math.min(this.rows.length, this.maxRows);
  }

  /** Rows dropped from the start to respect the cap. */
  get discarded(): number {
    return this.discardedCount + Math.max(0, this.rows.length - this.maxRows);
  }

  add(rows: readonly DetectionRow[]): void {
    if (rows.length === 0) return;
    this.rows.push(...rows);
    // Trim in batches so the cap costs O(1) amortised.
    const excess = this.rows.length - this.maxRows;
    if (excess > 0 && (excess >= 4096 || this.maxRows < 16_384)) {
      this.rows.splice(0, excess);
      this.discardedCount += excess;
    }
    this.changed.emit();
  }

  /** Every kept row, oldest first. */
  all(): DetectionRow[] {
    return this.rows.slice(Math.max(0, this.rows.length - this.maxRows));
  }

  clear(): void {
    this.rows = [];
    this.discardedCount = 0;
    this.changed.emit();
  }
}
