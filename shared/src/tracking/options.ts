/**
 * The tracker's settings. Every duration is in milliseconds of capture time, never a count of frames:
 * a camera at 10 or 30 frames per second, frames dropped on the way, answers arriving unevenly, all
 * keep a track alive, confirmed or predicted for the same real time.
 */
export interface TrackerOptions {
  /** Detections scoring at least this take part in the first association and may start tracks. */
  highScore: number;
  /** Detections below this are ignored. Those in [lowScore, highScore) only extend tracks already seen (ByteTrack's second stage). */
  lowScore: number;
  /** An unmatched detection starts a new (tentative) track only from this score. */
  newTrackScore: number;
  /** Least IoU between a track's predicted box and a high-score detection for them to be paired. */
  matchIou: number;
  /** Least IoU for a low-score detection (second stage): higher, since low scores are often false alarms. */
  lowScoreMatchIou: number;
  /**
   * The second stage offers low-score detections to confirmed tracks missed for at most this long (ms; those
   * detected in the previous update always): an object hard to see for a while (half hidden, blurred) keeps
   * its track through it instead of being dropped after one missed frame.
   */
  lowScoreMaxGapMs: number;
  /** Least IoU between a tentative track and a detection. */
  tentativeMatchIou: number;
  /**
   * A tentative track is confirmed (gets its id) once it has been detected over at least this span of
   * time: twice with a high score, or `confirmAfterHits` times in all (low scores included).
   */
  confirmAfterMs: number;
  /** Detections of any score that confirm a tentative track without a second high-score one (see confirmAfterMs). */
  confirmAfterHits: number;
  /** A tentative track not detected for longer than this is dropped. */
  tentativeMaxGapMs: number;
  /** A confirmed track not detected for longer than this is dropped (its id is never reused). */
  maxLostMs: number;
  /**
   * A confirmed track is drawn (returned by `predict`) while its last detection is at most this old,
   * measured at the latest update: it coasts on its motion through short misses, then disappears
   * while it may still be matched again until `maxLostMs`.
   */
  maxCoastMs: number;
  /** `predict` extrapolates at most this far from the latest update (either way); beyond, boxes hold. */
  maxPredictionMs: number;
  /** Past centres kept per track for drawing its trail. */
  trailLength: number;
  /** Standard deviation of a detection's position and size, as a fraction of the box's width (x axes) or height (y axes). */
  measurementNoise: number;
  /**
   * How much a box's velocity may change: the standard deviation of the change of the centre's
   * velocity over one second, in box widths (x) or heights (y) per second.
   */
  velocityChange: number;
  /** The same for the box's width and height (how quickly its size may start changing). */
  sizeChange: number;
  /** Prior standard deviation of a new track's velocity, in box widths or heights per second. */
  initialVelocity: number;
}

/**
 * Score thresholds as ByteTrack's paper (0.5 splits high from low, 0.6 starts a track); the rest tuned
 * on noisy TUD-Campus and TUD-Stadtmitte detections of seeds other than the ones docs/BENCHMARKS.md
 * reports (bench/tracking/ seeds 101-105, bench/events/ seeds 101-110). `confirmAfterMs` 30 confirms a
 * track at its second detection at up to 33 frames per second, as ByteTrack does at any rate.
 * `lowScoreMaxGapMs` is `maxCoastMs`: a track still drawn may still take a low-score detection (200 ms
 * kept fewer people through their hard-to-see spells, 800 ms no more than 400).
 */
export const DEFAULT_TRACKER_OPTIONS: Readonly<TrackerOptions> = Object.freeze({
  highScore: 0.5,
  lowScore: 0.1,
  newTrackScore: 0.6,
  matchIou: 0.3,
  lowScoreMatchIou: 0.4,
  lowScoreMaxGapMs: 400,
  tentativeMatchIou: 0.3,
  confirmAfterMs: 30,
  confirmAfterHits: 3,
  tentativeMaxGapMs: 100,
  maxLostMs: 1500,
  maxCoastMs: 400,
  maxPredictionMs: 500,
  trailLength: 30,
  measurementNoise: 0.05,
  velocityChange: 0.25,
  sizeChange: 0.1,
  initialVelocity: 1,
});

export function resolveTrackerOptions(options: Partial<TrackerOptions> = {}): TrackerOptions {
  const resolved = { ...DEFAULT_TRACKER_OPTIONS, ...options };
  for (const [name, value] of Object.entries(resolved)) {
    if (!Number.isFinite(value) || value < 0) throw new RangeError(`tracker option ${name} must be a finite number >= 0 (got ${value})`);
  }
  if (!Number.isInteger(resolved.trailLength) || resolved.trailLength < 1)
    throw new RangeError('tracker option trailLength must be an integer >= 1');
  if (!Number.isInteger(resolved.confirmAfterHits) || resolved.confirmAfterHits < 2)
    throw new RangeError('tracker option confirmAfterHits must be an integer >= 2');
  if (resolved.lowScore > resolved.highScore) throw new RangeError('tracker option lowScore must not exceed highScore');
  return resolved;
}
