/**
 * Every frame's sample, in answer order: a rolling window feeds the charts and the per-codec stats, and
 * everything (up to a cap) is kept for export.
 */
import { CODECS, type Codec } from '@sightline/shared/protocol';
import { mean, summarize, type Summary } from '@sightline/shared/stats';
import type { FramePath } from '../app/run-on.ts';
import type { FrameSample } from './frame-sample.ts';

export interface CodecStats {
  codec: Codec;
  /** Completed (answered with detections) frames in the window. */
  count: number;
  /** Full (send to answer) latency of the completed frames. */
  full: Summary;
  serverMean: number;
  inferenceMean: number;
  networkQueueMean: number;
  /**
   * Completed frames per second of wall time this codec was streaming, in the window: see computeStats.
   * NaN until two answers in a row have been seen.
   */
  fps: number;
  dropped: number;
  errors: number;
  /** Frames that got no answer (connection lost or timed out). */
  lost: number;
  /** Source frames skipped on the client (never sent) before this codec's frames in the window. */
  skipped: number;
  /** Mean bytes on the wire per completed frame message, up (frame) and down (detections). */
  bytesUpMean: number;
  bytesDownMean: number;
}

/** One path's figures (the gateway, both codecs together; or this device) over its last samples. */
export interface PathStats {
  path: FramePath;
  /** Completed frames in the window. */
  count: number;
  /** Per completed frame: gateway send to answer, or this device's hand-over to its detections. */
  full: Summary;
  /** The model's run alone. */
  inference: Summary;
  /** The gateway's own time; empty on this device. */
  server: Summary;
  /** Network, socket buffers and client codec (full - server); empty on this device. */
  networkQueue: Summary;
  /** Completed frames per second of the time this path was streaming (as CodecStats.fps). */
  fps: number;
  dropped: number;
  errors: number;
  lost: number;
  /** performance.now() of the path's newest completed frame; NaN when it has none. */
  lastAnsweredPerf: number;
}

export interface SampleStoreOptions {
  /** Samples kept for export; the oldest go first beyond it. */
  maxSamples?: number;
}

export const DEFAULT_MAX_SAMPLES = 100_000;

interface Entry {
  sample: FrameSample;
  /** Time since the previous answer, attributed to this sample's codec; null after a break in the stream. */
  intervalMs: number | null;
}

export class SampleStore {
  private entries: Entry[] = [];
  private readonly maxSamples: number;
  private lastAnsweredPerf: number | null = null;
  private discardedCount = 0;
  private version = 0;

  constructor(options: SampleStoreOptions = {}) {
    this.maxSamples = Math.max(1, options.maxSamples ?? DEFAULT_MAX_SAMPLES);
  }

  /** Changes whenever samples are added or cleared (cheap change detection for the UI). */
  get revision(): number {
    return this.version;
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
    this.version++;
    // Trim in batches so the cap costs O(1) amortised.
    const excess = this.entries.length - this.maxSamples;
    if (excess > 0 && (excess >= 1024 || this.maxSamples < 4096)) {
      this.entries.splice(0, excess);
      this.discardedCount += excess;
    }
  }

  /** The stream stopped (pause, reconnect, new source): the next answer does not measure throughput. */
  markBreak(): void {
    this.lastAnsweredPerf = null;
  }

  clear(): void {
    this.entries = [];
    this.lastAnsweredPerf = null;
    this.discardedCount = 0;
    this.version++;
  }

  /** All kept samples, oldest first (capped at maxSamples). */
  all(): FrameSample[] {
    const start = Math.max(0, this.entries.length - this.maxSamples);
    return this.entries.slice(start).map((entry) => entry.sample);
  }

  /** The last `count` samples of any codec, oldest first. */
  recent(count: number): FrameSample[] {
    return this.entries.slice(Math.max(0, this.entries.length - count)).map((entry) => entry.sample);
  }

  /** Stats over the last `window` samples of each codec. */
  statsByCodec(window: number): Record<Codec, CodecStats> {
    const result = {} as Record<Codec, CodecStats>;
    for (const codec of CODECS) result[codec] = this.statsFor(codec, window);
    return result;
  }

  statsFor(codec: Codec, window: number): CodecStats {
    return computeStats(
      codec,
      this.pick(window, (sample) => sample.codec === codec),
    );
  }

  /** Stats over the last `window` samples of one path (gateway frames of either codec, or this device's). */
  statsForPath(path: FramePath, window: number): PathStats {
    return this.statsForPathWindows(path, [window])[0]!;
  }

  /**
   * The same for several windows from one scan: a path with fewer frames than the window (the device's in
   * Gateway mode) is scanned to the start of the store, so a snapshot should not scan it once per window.
   */
  statsForPathWindows(path: FramePath, windows: readonly number[]): PathStats[] {
    const picked = this.pick(Math.max(...windows), (sample) => sample.path === path);
    return windows.map((window) => computePathStats(path, picked.slice(-window)));
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

function computePathStats(path: FramePath, entries: readonly Entry[]): PathStats {
  const full: number[] = [];
  const inference: number[] = [];
  const server: number[] = [];
  const networkQueue: number[] = [];
  let dropped = 0;
  let errors = 0;
  let lost = 0;
  let streamingMs = 0;
  let timedCompleted = 0;
  let lastAnsweredPerf = Number.NaN;
  // FPS as in computeStats: each answer's interval to the previous answer (of any path) is credited to its path.
  for (const { sample, intervalMs } of entries) {
    if (intervalMs !== null) {
      streamingMs += intervalMs;
      if (sample.outcome === 'ok') timedCompleted++;
    }
    if (sample.outcome === 'ok') {
      full.push(sample.fullMs);
      if (sample.inferenceMs !== null) inference.push(sample.inferenceMs);
      if (sample.serverMs !== null) server.push(sample.serverMs);
      if (sample.networkQueueMs !== null) networkQueue.push(sample.networkQueueMs);
      lastAnsweredPerf = sample.answeredPerf;
    } else if (sample.outcome === 'dropped') dropped++;
    else if (sample.outcome === 'error') errors++;
    else lost++;
  }
  return {
    path,
    count: full.length,
    full: summarize(full),
    inference: summarize(inference),
    server: summarize(server),
    networkQueue: summarize(networkQueue),
    fps: streamingMs > 0 ? (timedCompleted * 1000) / streamingMs : Number.NaN,
    dropped,
    errors,
    lost,
    lastAnsweredPerf,
  };
}

function computeStats(codec: Codec, entries: readonly Entry[]): CodecStats {
  const full: number[] = [];
  const server: number[] = [];
  const inference: number[] = [];
  const networkQueue: number[] = [];
  const bytesUp: number[] = [];
  const bytesDown: number[] = [];
  let dropped = 0;
  let errors = 0;
  let lost = 0;
  let skipped = 0;
  // FPS = answers that completed a measured interval ÷ the sum of those intervals. An interval is the time
  // from the previous answer (any codec) to this one and is credited to this answer's codec. The first answer
  // after a start, pause, reconnect or new source has no interval, so it counts in neither the numerator nor
  // the denominator: n completed frames 100 ms apart give (n − 1) / ((n − 1) × 100 ms) = 10 fps, not
  // n / (n − 1) intervals. Intervals ending in a dropped or error answer count as streaming time but not as
  // completed frames; lost frames (no answer) start a new run.
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
        if (sample.serverMs !== null) server.push(sample.serverMs);
        if (sample.inferenceMs !== null) inference.push(sample.inferenceMs);
        if (sample.networkQueueMs !== null) networkQueue.push(sample.networkQueueMs);
        bytesUp.push(sample.bytesUp);
        bytesDown.push(sample.bytesDown);
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
  const completed = full.length;
  return {
    codec,
    count: completed,
    full: summarize(full),
    serverMean: mean(server),
    inferenceMean: mean(inference),
    networkQueueMean: mean(networkQueue),
    fps: streamingMs > 0 ? (timedCompleted * 1000) / streamingMs : Number.NaN,
    dropped,
    errors,
    lost,
    skipped,
    bytesUpMean: mean(bytesUp),
    bytesDownMean: mean(bytesDown),
  };
}
