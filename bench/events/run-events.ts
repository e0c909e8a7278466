/**
 * The product's tracker and rule engine over a sequence of per-frame detections, as the gateway runs them on a
 * camera's stream: frame f captured at f / fps, `Tracker.identify` on its detections, the confirmed tracks to
 * `RuleEngine.update` (each with its detection's box and, as `trackBox`, the tracker's own filtered box at that
 * time, `Tracker.predict(t)`), and the stream's end after the last frame. For a file, `detectedAt` is the capture time too
 * (ms from the sequence's start), so a run's output is the same on every machine.
 */
import type { Detection } from '@sightline/shared/schemas';
import { RuleEngine, type CameraRules, type DetectionEvent, type RuleEngineOptions, type TrackedObject } from '@sightline/shared/events';
import { Tracker, type TrackerOptions } from '@sightline/shared/tracking';
import { frameTimeMs } from '../tracking/run-tracker.ts';

export interface EventRunOptions {
  /** Frames per second of the sequence: frame f was captured at f / fps seconds. */
  fps: number;
  /** The picture's size, pixels (the rules are normalised to it). */
  width: number;
  height: number;
  /** The camera the events name. */
  camera: string;
  /** The last frame of the sequence (default: the last frame with a detection). */
  lastFrame?: number;
  engine?: Partial<RuleEngineOptions>;
  tracker?: Partial<TrackerOptions>;
  /** false: no `trackBox`, the engine anchors on the detections' boxes (averaged over its smoothingMs). Default true. */
  trackBoxes?: boolean;
}

/** Every event of the run, in order, each with its `frame` and an `id` unique in the run (`<camera>-<n>`). */
export function runEvents(
  byFrame: ReadonlyMap<number, readonly Detection[]>,
  rules: CameraRules,
  options: EventRunOptions,
): DetectionEvent[] {
  const { fps, width, height, camera } = options;
  if (!(fps > 0)) throw new RangeError('fps must be positive');
  const lastFrame = options.lastFrame ?? Math.max(0, ...byFrame.keys());
  const tracker = new Tracker(options.tracker);
  const engine = new RuleEngine(camera, rules, options.engine);
  const events: DetectionEvent[] = [];
  const emit = (list: ReturnType<RuleEngine['update']>) => {
    for (const e of list) events.push({ id: `${camera}-${events.length + 1}`, ...e });
  };
  for (let frame = 1; frame <= lastFrame; frame++) {
    const t = frameTimeMs(frame, fps);
    const detections = byFrame.get(frame) ?? [];
    const ids = tracker.identify(detections, t);
    // The tracker's own (filtered) box of every track detected in this frame: the rule engine's anchor.
    const trackBoxes = new Map(options.trackBoxes === false ? [] : tracker.predict(t).map((b) => [b.id, b.box]));
    const objects: TrackedObject[] = [];
    detections.forEach((d, i) => {
      const trackId = ids[i];
      if (trackId === undefined) return;
      const own = trackBoxes.get(trackId);
      objects.push({
        trackId,
        label: d.label,
        score: d.score,
        box: [d.box[0], d.box[1], d.box[2], d.box[3]],
        ...(own ? { trackBox: [own[0], own[1], own[2], own[3]] as [number, number, number, number] } : {}),
      });
    });
    emit(engine.update({ capturedAt: t, detectedAt: t, width, height, objects, frame }));
  }
  const end = frameTimeMs(lastFrame, fps);
  emit(engine.end(end, end, lastFrame));
  return events;
}
