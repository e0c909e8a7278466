/**
 * Runs the product's tracker over a sequence of per-frame detections and says what the overlay
 * would draw on every frame, with the answers arriving `lagFrames` frames late: at frame t the
 * tracker has been fed the detections of frames up to t - lagFrames (each at its own capture time)
 * and draws every track predicted to frame t's time.
 */
import type { Detection } from '@sightline/shared/schemas';
import { Tracker, type FrameSize, type TrackerOptions } from '@sightline/shared/tracking';
import type { MotRow } from './mot-file.ts';

export interface TrackRunOptions {
  /** Frames per second of the sequence: frame f was captured at f / fps seconds. */
  fps: number;
  lagFrames: number;
  /** The last frame to draw (default: the last frame with a detection). */
  lastFrame?: number;
  /**
   * false: draw the latest answer's boxes where they were (the filtered boxes at their capture time)
   * instead of predicted to the frame's time, as a dashboard without latency compensation does.
   */
  predict?: boolean;
  /** The images' size, when known: a track missed at the edge of the picture is not drawn (see `Tracker.predict`). */
  frame?: FrameSize;
  tracker?: Partial<TrackerOptions>;
}

export function frameTimeMs(frame: number, fps: number): number {
  return (frame * 1000) / fps;
}

export function runTracker(
  byFrame: ReadonlyMap<number, readonly Detection[]>,
  options: TrackRunOptions,
): Array<Pick<MotRow, 'frame' | 'id' | 'box'>> {
  const { fps, lagFrames } = options;
  if (!(fps > 0)) throw new RangeError('fps must be positive');
  if (!Number.isInteger(lagFrames) || lagFrames < 0) throw new RangeError('lagFrames must be an integer >= 0');
  const lastFrame = options.lastFrame ?? Math.max(0, ...byFrame.keys());
  const tracker = new Tracker(options.tracker);
  const out: Array<Pick<MotRow, 'frame' | 'id' | 'box'>> = [];
  for (let frame = 1; frame <= lastFrame; frame++) {
    const known = frame - lagFrames;
    if (known < 1) continue;
    tracker.update(byFrame.get(known) ?? [], frameTimeMs(known, fps));
    const drawnAt = options.predict === false ? frameTimeMs(known, fps) : frameTimeMs(frame, fps);
    for (const t of tracker.predict(drawnAt, options.frame)) out.push({ frame, id: t.id, box: t.box });
  }
  return out;
}
