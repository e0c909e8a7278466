/**
 * Every frame's sample, in answer order, whichever route served it: a rolling window feeds the charts and
 * the statistics, which one function computes for any group of samples (a route, or one codec of it), and
 * everything (up to a cap) is kept for export.
 */
import { mean, summarize, type Summary } from '@sightline/shared/stats';
import { Signal } from '../events/signal.ts';
import type { FrameRoute } from '../frame-routes/run-on.ts';
import type { StreamCodec } from '../transport/stream-codecs.ts';
import type { Transport } from '../transport/transports.ts';
import type { FrameSample } from './frame-sample.ts';

/**
 * Which samples a figure is over: every frame of one route, or only those sent in one codec (over one
 * transport); on the wire, only those that crossed one link (figures from different links are never pooled).
 */
export interface SampleGroup {
  path: FrameRoute;
  codec?: StreamCodec;
  transport?: Transport;
  /** A link's spec (FrameSample.link): only frames that crossed it. */
  link?: string;
}

/** A codec over a transport that frames went in: one column of the codec comparison. */
export interface StreamKind {
  transport: Transport;
  codec: StreamCodec;
}

/** One group's figures over its last samples. */
export interface FrameStats {
  /** Completed (answered with detections) frames in the window. */
  count: number;
  /** Per completed frame: send to answer through the gateway, the hand-over to the worker to its boxes on this device. */
  full: Summary;
  /** The model's run alone. */
  inference: Summary;
  /** The server's own time; empty on a route without one (this device). */
  server: Summary;
  /** Network, socket buffers and client codec (full - server); empty without a server. */
  networkQueue: Summary;
  /** Completed frames per second of the time this group was streaming, in the window: see computeStats. NaN until two answers in a row. */
  fps: number;
  dropped: number;
  errors: number;
  /** Frames that got no answer (connection lost or timed out). */
  lost: number;
  /** Source frames skipped on the client (never sent) before this group's frames in the window. */
  skipped: number;
  /** Mean bytes on the wire per completed frame message, up (frame) and down (detections); 0 off the wire. */
  bytesUpMean: number;
  bytesDownMean: number;
  /** performance.now() of the newest completed frame; NaN when there is none. */
  lastAnsweredPerf: number;
}

/** What changed in the store: a sample came in (the stream), or it was emptied (a click). */
export type SampleStoreChange = 'added' | 'cleared';

export interface SampleStoreOptions {
  /** Samples kept for export; the oldest go first beyond it. */
  maxSamples?: number;
}

export const DEFAULT_MAX_SAMPLES = 100_000;

interface Entry {
  sample: FrameSample;
  /** Time since the previous answer (of any route), credited to this sample's group; null after a break in the stream. */
  intervalMs: number | null;
}

export class SampleStore {
  readonly changed = new Signal<SampleStoreChange>();
  private entries: Entry[] = [];
  private readonly maxSamples: number;
  private lastAnsweredPerf: number | null = null;
  private discardedCount = 0;
  /** Every codec and transport the gateway's frames went in since the last clear, by `transport:codec`. */
  private kinds = new Map<string, StreamKind>();

  constructor(options: SampleStoreOptions = {}) {
    this.maxSamples = Math.max(1, options.maxSamples ?? DEFAULT_MAX_SAMPLES);
  }

  get size(): number {
    return Math.min(this.entries.length, this.maxSamples);
  }

  /** Samples dropped from the start to respect the cap. */
  get discarded(): number {
    return this.discardedCount + Math.max(0, this.entries.length - this.maxSamples);
  }

  add(sample: FrameSample): void {
    let intervalMs: number | null = null;
    if (sample.outcome === 'lost') {
      this.lastAnsweredPerf = null;
    } else {
      if (this.lastAnsweredPerf !== null) intervalMs = Math.max(0, sample.answeredPerf - this.lastAnsweredPerf);
      this.lastAnsweredPerf = sample.answeredPerf;
    }
    this.entries.push({ sample, intervalMs });
    if (sample.codec !== null) {
      const transport = sample.transport ?? 'websocket';
      const key = `${transport}:${sample.codec}`;
      if (!this.kinds.has(key)) this.kinds.set(key, { transport, codec: sample.codec });
    }
    // Trim in batches so the cap costs O(1) amortised.
    const excess = this.entries.length - this.maxSamples;
    if (excess > 0 && (excess >= 1024 || this.maxSamples < 4096)) {
      this.entries.splice(0, excess);
      this.discardedCount += excess;
    }
    this.changed.emit('added');
  }

  /** The stream stopped (pause, reconnect, new source): the next answer does not measure throughput. */
  markBreak(): void {
    this.lastAnsweredPerf = null;
  }

  clear(): void {
    this.entries = [];
    this.kinds = new Map();
    this.lastAnsweredPerf = null;
    this.discardedCount = 0;
    this.changed.emit('cleared');
  }

  /** All kept samples, oldest first (capped at maxSamples). */
  all(): FrameSample[] {
    const start = Math.max(0, this.entries.length - this.maxSamples);
    return this.entries.slice(start).map((entry) => entry.sample);
  }

  /**
   * The last `count` samples of any codec, oldest first; with `link`, only those that crossed it and those
   * that crossed none (this device's).
   */
  recent(count: number, link?: string): FrameSample[] {
    if (link === undefined) return this.entries.slice(Math.max(0, this.entries.length - count)).map((entry) => entry.sample);
    return this.pick(count, (sample) => sample.link === null || sample.link === link).map((entry) => entry.sample);
  }

  /** The links frames crossed, in the order they were first measured (oldest kept sample first). */
  links(): string[] {
    const links = new Set<string>();
    for (let i = Math.max(0, this.entries.length - this.maxSamples); i < this.entries.length; i++) {
      const { link } = this.entries[i]!.sample;
      if (link !== null) links.add(link);
    }
    return [...links];
  }

  /** The codecs and transports frames went to the gateway in since the samples were last cleared, first seen first. */
  streamKinds(): StreamKind[] {
    return [...this.kinds.values()];
  }

  /** Stats over the last `window` samples of `group`. */
  stats(group: SampleGroup, window: number): FrameStats {
    return this.statsWindows(group, [window])[0]!;
  }

  /**
   * The same for several windows from one scan: a group with fewer frames than the window (this device's
   * in Gateway mode) is scanned to the start of the store, so a snapshot should not scan it once per window.
   */
  statsWindows(group: SampleGroup, windows: readonly number[]): FrameStats[] {
    const picked = this.pick(Math.max(...windows), (sample) => inGroup(sample, group));
    return windows.map((window) => computeStats(picked.slice(-window)));
  }

  /** The last `window` entries that `matches`, oldest first. */
  private pick(window: number, matches: (sample: FrameSample) => boolean): Entry[] {
    const picked: Entry[] = [];
    for (let i = this.entries.length - 1; i >= 0 && picked.length < window; i--) {
      const entry = this.entries[i]!;
      if (matches(entry.sample)) picked.push(entry);
    }
    return picked.reverse();
  }
}

function inGroup(sample: FrameSample, group: SampleGroup): boolean {
  return (
    sample.path === group.path &&
    (group.codec === undefined || sample.codec === group.codec) &&
    (group.transport === undefined || (sample.transport ?? 'websocket') === group.transport) &&
    (group.link === undefined || sample.link === group.link)
  );
}

function computeStats(entries: readonly Entry[]): FrameStats {
  const full: number[] = [];
  const inference: number[] = [];
  const server: number[] = [];
  const networkQueue: number[] = [];
  const bytesUp: number[] = [];
  const bytesDown: number[] = [];
  let dropped = 0;
  let errors = 0;
  let lost = 0;
  let skipped = 0;
  let lastAnsweredPerf = Number.NaN;
  // FPS = answers that completed a measured interval ÷ the sum of those intervals. An interval is the time
  // from the previous answer (of any group) to this one and is credited to this answer's group. The first
  // answer after a start, pause, reconnect or new source has no interval, so it counts in neither the
  // numerator nor the denominator: n completed frames 100 ms apart give (n − 1) / ((n − 1) × 100 ms) = 10 fps,
  // not n / (n − 1) intervals. Intervals ending in a dropped or error answer count as streaming time but not
  // as completed frames; lost frames (no answer) start a new run.
  let streamingMs = 0;
  let timedCompleted = 0;
  for (const { sample, intervalMs } of entries) {
    if (intervalMs !== null) {
      streamingMs += intervalMs;
      if (sample.outcome === 'ok') timedCompleted++;
    }
    skipped += sample.skippedBefore;
    switch (sample.outcome) {
      case 'ok':
        full.push(sample.fullMs);
        if (sample.inferenceMs !== null) inference.push(sample.inferenceMs);
        if (sample.serverMs !== null) server.push(sample.serverMs);
        if (sample.networkQueueMs !== null) networkQueue.push(sample.networkQueueMs);
        bytesUp.push(sample.bytesUp);
        bytesDown.push(sample.bytesDown);
        lastAnsweredPerf = sample.answeredPerf;
        break;
      case 'dropped':
        dropped++;
        break;
      case 'error':
        errors++;
        break;
      case 'lost':
        lost++;
        break;
    }
  }
  return {
    count: full.length,
    full: summarize(full),
    inference: summarize(inference),
    server: summarize(server),
    networkQueue: summarize(networkQueue),
    fps: streamingMs > 0 ? (timedCompleted * 1000) / streamingMs : Number.NaN,
    dropped,
    errors,
    lost,
    skipped,
    bytesUpMean: mean(bytesUp),
    bytesDownMean: mean(bytesDown),
    lastAnsweredPerf,
  };
}
