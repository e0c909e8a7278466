/**
 * `@sightline/shared/tracking`: the multi-object tracker the dashboard and the gateway share, pure
 * TypeScript (no Node or DOM API).
 *
 * ```ts
 * const tracker = new Tracker();                        // or new Tracker({ maxLostMs: 2000, ... })
 * tracker.update(answer.detections, frameCaptureTimeMs); // every answer, in capture order: Track[]
 * tracker.predict(captureTimeOfFrameOnScreenMs, { width, height }); // what to draw now: TrackedBox[]
 * ```
 *
 * Detections are the protocol's (`{ label, classId, score, box: [x1, y1, x2, y2] }`, image pixels).
 * Times are milliseconds on one clock (capture times); durations in the options are ms too, never
 * frame counts. Tracks of different classes never exchange detections.
 */
export { assignByScore, linearSumAssignment, type Assignment } from './assignment.ts';
export { ConstantVelocityKalman } from './kalman.ts';
export { DEFAULT_TRACKER_OPTIONS, resolveTrackerOptions, type TrackerOptions } from './options.ts';
export { type Box, type Point, type Track, type TrackedBox } from './track.ts';
export { Tracker, type FrameSize } from './tracker.ts';
