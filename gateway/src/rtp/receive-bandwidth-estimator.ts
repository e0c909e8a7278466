/**
 * The bitrate the gateway asks of a video sender (REMB), estimated from how the sender's packets arrive: the
 * delay-based half of Google Congestion Control (draft-ietf-rmcat-gcc-02, section 5: inter-group delay
 * variation, an over-use detector with an adaptive threshold and AIMD rate control; the trendline filter that
 * replaced its Kalman filter in libwebrtc), and the loss rule of its other half applied at the receiver.
 *
 * Why: with a fixed REMB a sender encodes at that rate whatever its uplink carries, so a slow uplink's queue
 * fills (3G, a congested LTE cell: up to a second of delay, then packets dropped and nothing detected). The
 * browser and aiortc take the REMB as their ceiling. Kept stricter than GCC in one place: Sightline wants the
 * newest frame, not the best picture, so a standing queue found at a decrease is drained (the rate goes below
 * what arrives) rather than kept.
 *
 * Hand-written: no maintained JavaScript implementation exists, and it is a few small filters over numbers
 * the depacketizer already reads. Pure: the caller passes arrival times, so tests drive it with a fake clock.
 */

export interface BandwidthEstimatorOptions {
  /** The most it ever asks for (and what it asks for before anything is measured). */
  maxBitrateBps: number;
  /** The least it asks for: a sender below it cannot carry a picture worth detecting. */
  minBitrateBps: number;
  /** RTP clock rate of the stream (90 kHz for video). */
  clockRate?: number;
}

export type BandwidthUsage = 'normal' | 'overusing' | 'underusing';

/** Packets of one frame share an RTP timestamp: they left the sender together and form one group. */
interface PacketGroup {
  rtpTimestamp: number;
  /** Capture time on the sender's clock (ms), its RTP timestamp unwrapped. */
  sendMs: number;
  firstArrivalMs: number;
  lastArrivalMs: number;
}

/** Delay-gradient points the trend is fitted over (libwebrtc's window: 20 groups, under a second of video). */
const TREND_WINDOW = 20;
const TREND_SMOOTHING = 0.9;
const TREND_GAIN = 4;
/** Deltas after which the trend counts fully: early slopes rest on few points. */
const TREND_MAX_DELTAS = 60;
/** The detector's threshold adapts to the trend's noise within these bounds (ms), up slowly, down faster. */
const THRESHOLD_INITIAL = 12.5;
const THRESHOLD_MIN = 6;
const THRESHOLD_MAX = 600;
const THRESHOLD_K_UP = 0.0087;
const THRESHOLD_K_DOWN = 0.039;
/** A trend this far above the threshold is an outlier (a sender pause, a burst): the threshold does not follow it. */
const THRESHOLD_MAX_ADAPT_OFFSET = 15;
/** The trend must stay over the threshold this long (ms) before it counts as over-use. */
const OVERUSE_TIME_MS = 10;
/** Multiplicative decrease: what arrived times this (GCC's beta). */
const DECREASE_FACTOR = 0.85;
/** A standing queue longer than this (ms) at a decrease is drained: the rate goes to half of what arrives. */
const DRAIN_QUEUE_MS = 100;
const DRAIN_FACTOR = 0.5;
/** A sender needs about a round trip to act on a REMB: no second decrease sooner. */
const DECREASE_INTERVAL_MS = 300;
/** Multiplicative increase per second while the path shows no over-use. */
const INCREASE_PER_SECOND = 1.08;
/** A sender far below what it may send is limited by its encoder, not the path: asking for more shows nothing. */
const APPLICATION_LIMITED_FACTOR = 1.5;
/** Received rate over this window (ms). */
const RATE_WINDOW_MS = 500;
/** The lowest transit time seen over this window (ms) is the path without a queue. */
const BASE_DELAY_WINDOW_MS = 30_000;
const BASE_DELAY_BUCKET_MS = 2_000;
/** Queue delay is the median of groups completed over this window (ms): one keyframe is not a queue. */
const QUEUE_WINDOW_MS = 300;
/** Loss above this fraction lowers the rate by half of it (GCC's loss rule); below, loss is the path's noise. */
const LOSS_DECREASE_THRESHOLD = 0.1;
/** Groups further apart than this (ms, send or arrival) restart the trend: the sender paused. */
const MAX_GROUP_GAP_MS = 2_000;

export class ReceiveBandwidthEstimator {
  readonly #maxBps: number;
  readonly #minBps: number;
  readonly #ticksPerMs: number;
  #targetBps: number;

  #group: PacketGroup | undefined;
  #previous: PacketGroup | undefined;
  #accumulatedDelayMs = 0;
  #smoothedDelayMs = 0;
  #firstGroupArrivalMs: number | undefined;
  readonly #trendPoints: { x: number; y: number }[] = [];
  #deltas = 0;
  #trend = 0;
  #previousTrend = 0;

  #threshold = THRESHOLD_INITIAL;
  #thresholdUpdatedMs: number | undefined;
  #overuseTimeMs = -1;
  #overuseCount = 0;
  #usage: BandwidthUsage = 'normal';

  #lastDecreaseMs = -Infinity;
  #lastUpdateMs: number | undefined;
  readonly #arrivals: { atMs: number; bytes: number }[] = [];
  readonly #transits: { atMs: number; transitMs: number }[] = [];
  readonly #baseBuckets: { startMs: number; minTransitMs: number }[] = [];

  constructor(options: BandwidthEstimatorOptions) {
    this.#maxBps = options.maxBitrateBps;
    this.#minBps = Math.min(options.minBitrateBps, options.maxBitrateBps);
    this.#ticksPerMs = (options.clockRate ?? 90_000) / 1000;
    this.#targetBps = this.#maxBps;
  }

  get targetBps(): number {
    return this.#targetBps;
  }

  get usage(): BandwidthUsage {
    return this.#usage;
  }

  /** One RTP packet as it arrived: its frame's timestamp and its size on the wire. */
  onPacket(arrivalMs: number, rtpTimestamp: number, bytes: number): void {
    this.#arrivals.push({ atMs: arrivalMs, bytes });
    while (this.#arrivals.length && arrivalMs - this.#arrivals[0]!.atMs > RATE_WINDOW_MS) this.#arrivals.shift();

    const group = this.#group;
    if (group && rtpTimestamp === group.rtpTimestamp) {
      group.lastArrivalMs = arrivalMs;
      return;
    }
    // A late packet of an earlier frame says nothing about the queue now.
    if (group && this.#ticksBetween(group.rtpTimestamp, rtpTimestamp) < 0) return;
    if (group) this.#completeGroup(group);
    const sendMs = group ? group.sendMs + this.#ticksBetween(group.rtpTimestamp, rtpTimestamp) / this.#ticksPerMs : 0;
    this.#group = { rtpTimestamp, sendMs, firstArrivalMs: arrivalMs, lastArrivalMs: arrivalMs };
  }

  /**
   * The bitrate to ask for now, given the fraction of packets lost since the last call. Call it every few
   * hundred milliseconds; between calls only packets are counted.
   */
  update(nowMs: number, lossFraction = 0): number {
    const sinceLastMs = this.#lastUpdateMs === undefined ? 0 : Math.min(nowMs - this.#lastUpdateMs, 1000);
    this.#lastUpdateMs = nowMs;
    const incomingBps = this.incomingBps(nowMs);

    if (this.#usage === 'overusing') {
      if (nowMs - this.#lastDecreaseMs >= DECREASE_INTERVAL_MS && incomingBps > 0) {
        const factor = this.queueDelayMs(nowMs) > DRAIN_QUEUE_MS ? DRAIN_FACTOR : DECREASE_FACTOR;
        this.#targetBps = Math.min(this.#targetBps, factor * incomingBps);
        this.#lastDecreaseMs = nowMs;
      }
    } else if (this.#usage === 'normal' && incomingBps * APPLICATION_LIMITED_FACTOR >= this.#targetBps) {
      this.#targetBps *= INCREASE_PER_SECOND ** (sinceLastMs / 1000);
    }
    if (lossFraction > LOSS_DECREASE_THRESHOLD) this.#targetBps *= 1 - 0.5 * lossFraction;
    this.#targetBps = Math.round(Math.min(this.#maxBps, Math.max(this.#minBps, this.#targetBps)));
    return this.#targetBps;
  }

  /** Bits per second that arrived over the last half second. */
  incomingBps(nowMs: number): number {
    const bytes = this.#arrivals.reduce((sum, a) => (nowMs - a.atMs <= RATE_WINDOW_MS ? sum + a.bytes : sum), 0);
    return (bytes * 8 * 1000) / RATE_WINDOW_MS;
  }

  /** How long frames completed lately waited in a queue: their transit minus the lowest transit of the last 30 s. */
  queueDelayMs(nowMs: number): number {
    const base = Math.min(...this.#baseBuckets.map((b) => b.minTransitMs));
    const recent = this.#transits.filter((t) => nowMs - t.atMs <= QUEUE_WINDOW_MS).map((t) => t.transitMs - base);
    if (!recent.length || !Number.isFinite(base)) return 0;
    recent.sort((a, b) => a - b);
    return recent[Math.floor(recent.length / 2)]!;
  }

  /** The signed difference of two RTP timestamps: the 32-bit clock wraps (every 13 hours at 90 kHz). */
  #ticksBetween(from: number, to: number): number {
    return (to - from) | 0;
  }

  #completeGroup(group: PacketGroup): void {
    this.#recordTransit(group);
    const previous = this.#previous;
    this.#previous = group;
    if (!previous) return;
    const sendDeltaMs = group.sendMs - previous.sendMs;
    const arrivalDeltaMs = group.lastArrivalMs - previous.lastArrivalMs;
    if (sendDeltaMs > MAX_GROUP_GAP_MS || arrivalDeltaMs > MAX_GROUP_GAP_MS) {
      this.#resetTrend();
      return;
    }
    this.#updateTrend(arrivalDeltaMs - sendDeltaMs, group.lastArrivalMs);
    this.#detect(sendDeltaMs, group.lastArrivalMs);
  }

  #recordTransit(group: PacketGroup): void {
    // The first packet's transit: the queue it met, without the time the frame's own packets take to drain.
    const transitMs = group.firstArrivalMs - group.sendMs;
    const atMs = group.lastArrivalMs;
    this.#transits.push({ atMs, transitMs });
    while (this.#transits.length && atMs - this.#transits[0]!.atMs > QUEUE_WINDOW_MS) this.#transits.shift();
    const bucket = this.#baseBuckets.at(-1);
    if (!bucket || atMs - bucket.startMs >= BASE_DELAY_BUCKET_MS) this.#baseBuckets.push({ startMs: atMs, minTransitMs: transitMs });
    else bucket.minTransitMs = Math.min(bucket.minTransitMs, transitMs);
    while (this.#baseBuckets.length && atMs - this.#baseBuckets[0]!.startMs > BASE_DELAY_WINDOW_MS) this.#baseBuckets.shift();
  }

  #resetTrend(): void {
    this.#accumulatedDelayMs = 0;
    this.#smoothedDelayMs = 0;
    this.#firstGroupArrivalMs = undefined;
    this.#trendPoints.length = 0;
    this.#deltas = 0;
    this.#trend = 0;
    this.#previousTrend = 0;
    this.#overuseTimeMs = -1;
    this.#overuseCount = 0;
    this.#usage = 'normal';
  }

  /** Least-squares slope of the smoothed accumulated delay against arrival time: how fast a queue grows. */
  #updateTrend(delayVariationMs: number, arrivalMs: number): void {
    this.#firstGroupArrivalMs ??= arrivalMs;
    this.#deltas = Math.min(this.#deltas + 1, TREND_MAX_DELTAS);
    this.#accumulatedDelayMs += delayVariationMs;
    this.#smoothedDelayMs = TREND_SMOOTHING * this.#smoothedDelayMs + (1 - TREND_SMOOTHING) * this.#accumulatedDelayMs;
    this.#trendPoints.push({ x: arrivalMs - this.#firstGroupArrivalMs, y: this.#smoothedDelayMs });
    if (this.#trendPoints.length > TREND_WINDOW) this.#trendPoints.shift();
    if (this.#trendPoints.length < TREND_WINDOW) return;
    const n = this.#trendPoints.length;
    const meanX = this.#trendPoints.reduce((s, p) => s + p.x, 0) / n;
    const meanY = this.#trendPoints.reduce((s, p) => s + p.y, 0) / n;
    let numerator = 0;
    let denominator = 0;
    for (const p of this.#trendPoints) {
      numerator += (p.x - meanX) * (p.y - meanY);
      denominator += (p.x - meanX) ** 2;
    }
    if (denominator > 0) this.#trend = numerator / denominator;
  }

  #detect(sendDeltaMs: number, nowMs: number): void {
    if (this.#deltas < 2) return;
    const previousTrend = this.#previousTrend;
    this.#previousTrend = this.#trend;
    const modifiedTrend = Math.min(this.#deltas, TREND_MAX_DELTAS) * this.#trend * TREND_GAIN;
    if (modifiedTrend > this.#threshold) {
      this.#overuseTimeMs = this.#overuseTimeMs < 0 ? sendDeltaMs / 2 : this.#overuseTimeMs + sendDeltaMs;
      this.#overuseCount += 1;
      if (this.#overuseTimeMs > OVERUSE_TIME_MS && this.#overuseCount > 1 && this.#trend >= previousTrend) {
        this.#overuseTimeMs = 0;
        this.#overuseCount = 0;
        this.#usage = 'overusing';
      }
    } else {
      this.#overuseTimeMs = -1;
      this.#overuseCount = 0;
      this.#usage = modifiedTrend < -this.#threshold ? 'underusing' : 'normal';
    }
    this.#adaptThreshold(modifiedTrend, nowMs);
  }

  #adaptThreshold(modifiedTrend: number, nowMs: number): void {
    const since = this.#thresholdUpdatedMs === undefined ? 0 : Math.min(nowMs - this.#thresholdUpdatedMs, 100);
    this.#thresholdUpdatedMs = nowMs;
    const magnitude = Math.abs(modifiedTrend);
    if (magnitude > this.#threshold + THRESHOLD_MAX_ADAPT_OFFSET) return;
    const k = magnitude < this.#threshold ? THRESHOLD_K_DOWN : THRESHOLD_K_UP;
    this.#threshold += k * (magnitude - this.#threshold) * since;
    this.#threshold = Math.min(THRESHOLD_MAX, Math.max(THRESHOLD_MIN, this.#threshold));
  }
}
