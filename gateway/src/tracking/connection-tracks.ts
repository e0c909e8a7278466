/**
 * Tracking for one connection that asked for it (`?track=1`): one tracker per model (a model switch is a
 * different set of objects), fed each answered frame in turn, the frame's `ts` as its capture time. The
 * same tracker as the dashboard's (`@sightline/shared/tracking`), so ids mean the same on both sides.
 */
import type { Box, Detection } from '@sightline/shared/protocol';
import { Tracker } from '@sightline/shared/tracking';

export class ConnectionTracks {
  private readonly trackers = new Map<string, Tracker>();

  /** The detections of a frame with the id of the confirmed track each belongs to, where it has one. */
  identify(model: string, detections: readonly Detection[], captureTimeMs: number): Detection[] {
    let tracker = this.trackers.get(model);
    if (!tracker) this.trackers.set(model, (tracker = new Tracker()));
    const ids = tracker.identify(detections, captureTimeMs);
    return detections.map((detection, i) => (ids[i] === undefined ? detection : { ...detection, trackId: ids[i] }));
  }

  /**
   * Each confirmed track's filtered box at its latest update (the frame just identified): steadier than the
   * detection's own box, which is what a rule's anchor should follow.
   */
  trackBoxes(model: string, captureTimeMs: number): Map<number, Box> {
    const tracker = this.trackers.get(model);
    return new Map((tracker?.predict(captureTimeMs) ?? []).map((tracked) => [tracked.id, tracked.box]));
  }
}
