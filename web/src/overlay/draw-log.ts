/**
 * A test hook that costs nothing unless asked for: with `?debug` in the page's URL, the dashboard keeps
 * what the overlay drew for each frame (the last DRAW_LOG_CAPACITY) in `window.__sightline.draws()`, so
 * a browser test can compare the drawn boxes with where the objects really were (e2e
 * `11-tracking.spec.ts`). Without it, no record is even built (OverlaySources.onDraw stays unset).
 */
import type { Box } from '@sightline/shared/protocol';
import type { CaptureClock, PresentedFrame } from '../capture/frame-times.ts';
import type { BoxMode } from '../tracking/box-mode.ts';
import type { MediaSize } from './overlay-geometry.ts';
import type { OverlayScene } from './overlay-scene.ts';

export const DEBUG_QUERY_PARAM = 'debug';
export const DRAW_LOG_CAPACITY = 5000;

export interface DrawnBox {
  trackId?: number;
  label: string;
  score: number;
  /** In the shown picture's own pixels (the video's intrinsic size), never mirrored. */
  box: Box;
}

/** One overlay drawing. */
export interface DrawnFrame {
  /** performance.now() when drawn. */
  at: number;
  mode: BoxMode;
  /** The capture time the boxes were drawn for (page clock, ms). */
  displayAt: number;
  /** The video frame on screen, named by its media time (s, as requestVideoFrameCallback says it); absent for a still image. */
  mediaTime?: number;
  clock?: CaptureClock;
  /** displayAt minus the latest answer's capture time; absent while there is nothing to draw. */
  leadMs?: number;
  boxes: DrawnBox[];
}

export function debugRequested(search: string): boolean {
  return new URLSearchParams(search).has(DEBUG_QUERY_PARAM);
}

/** What was drawn, in the picture's own pixels (scene boxes are in the tracking space). */
export function describeDraw(
  mode: BoxMode,
  displayAt: number,
  onScreen: PresentedFrame | undefined,
  scene: OverlayScene | undefined,
  media: MediaSize,
): DrawnFrame {
  const sx = scene ? media.width / scene.width : 1;
  const sy = scene ? media.height / scene.height : 1;
  const boxes = (scene?.items ?? []).map(({ trackId, label, score, box }) => ({
    ...(trackId === undefined ? {} : { trackId }),
    label,
    score,
    box: [box[0] * sx, box[1] * sy, box[2] * sx, box[3] * sy] as Box,
  }));
  return {
    at: performance.now(),
    mode,
    displayAt,
    ...(onScreen ? { mediaTime: onScreen.mediaTime, clock: onScreen.clock } : {}),
    ...(scene ? { leadMs: scene.leadMs } : {}),
    boxes,
  };
}

/** The last `capacity` drawings. */
export class DrawLog {
  private entries: DrawnFrame[] = [];

  constructor(private readonly capacity = DRAW_LOG_CAPACITY) {}

  add(drawn: DrawnFrame): void {
    this.entries.push(drawn);
    if (this.entries.length > this.capacity) this.entries.splice(0, this.entries.length - this.capacity);
  }

  list(): DrawnFrame[] {
    return [...this.entries];
  }

  clear(): void {
    this.entries = [];
  }
}

/** What `window.__sightline` holds in debug mode. */
export interface SightlineDebug {
  /** Every drawing kept, oldest first. */
  draws(): DrawnFrame[];
  clearDraws(): void;
}

export function debugHook(log: DrawLog): SightlineDebug {
  return { draws: () => log.list(), clearDraws: () => log.clear() };
}
