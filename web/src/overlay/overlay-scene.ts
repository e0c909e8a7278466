/**
 * What the overlay draws for one video frame: boxes in the pixels of one picture space, each with its
 * track (if a confirmed track holds it) and that track's trail. Built by the tracking unit
 * (tracking/live-tracks.ts), drawn by draw-boxes.ts.
 */
import type { Box } from '@sightline/shared/protocol';
import type { BoxMode } from '../tracking/box-mode.ts';

export type Point = readonly [x: number, y: number];

/**
 * How old the latest answer may get before it is stale (the stream paused or stalled): its boxes are
 * dimmed, and the lead it gives says nothing about the latency any more.
 */
export const STALE_AFTER_MS = 1500;

export interface OverlayItem {
  /** The confirmed track holding it; undefined for a detection no confirmed track holds (yet). */
  trackId?: number;
  label: string;
  classId: number;
  score: number;
  box: Box;
  /** The track's past centres, oldest first, ending where the box is; empty without a track. */
  trail: readonly Point[];
}

export interface OverlayScene {
  mode: BoxMode;
  /** The picture space of boxes and trails (the first answer's image size since the tracks were reset). */
  width: number;
  height: number;
  items: readonly OverlayItem[];
  /** performance.now() when the latest answer arrived: old boxes are dimmed. */
  receivedAt: number;
  /** The frame on screen's capture time minus the latest answer's: how far the boxes were moved on (predicted) or lag (raw), ms. */
  leadMs: number;
}
