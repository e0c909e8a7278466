/**
 * The numbers of a WebRTC run, from its frames: over the measured period, and per window of it (10 s in a
 * cell, a minute in a long run) so that a delay that grows shows as growing. Pure: samples in, figures out.
 */
import { percentile } from '@sightline/shared/stats';

/**
 * One camera frame of the run. skipped: captured but never sent (the data channel's window or send buffer
 * was full; on the video track, the encoder dropped it); the other outcomes are SendLog's, settled.
 */
export interface FrameSample {
  /** Capture (track) or send (data channel) time, ms on the sender's clock. */
  sentAt: number;
  outcome: 'detected' | 'refused' | 'lost' | 'skipped';
  latencyMs?: number | undefined;
  bytes: number;
  /** refused: the server's reason (`dropped:superseded`, ...). */
  reason?: string | undefined;
}

export interface PeriodFigures {
  /** Seconds from the origin (the end of the warm-up) where this period starts and ends. */
  fromS: number;
  toS: number;
  /** Frames that went out (skipped ones not counted). */
  sent: number;
  detected: number;
  refused: number;
  /** Data channel: no reply within the timeout. Video track: no detections named the frame (lost on the way or not detected). */
  lost: number;
  skipped: number;
  /** Frames detected per second of the period. */
  detectionsPerS: number;
  /** Latency of the detected frames, ms; NaN when none. */
  p50: number;
  p95: number;
  p99: number;
  max: number;
  /** Mean bytes of a frame sent. */
  bytesPerFrame: number;
  /** Bytes of the frames sent per second of the period (payload, before transport overhead). */
  bytesPerS: number;
  /** Refusals by reason. */
  reasons: Record<string, number>;
}

/** The figures of the frames captured in [fromMs, toMs); times as ms on the sender's clock, `originMs` is second 0. */
export function periodFigures(samples: readonly FrameSample[], fromMs: number, toMs: number, originMs: number): PeriodFigures {
  const inside = samples.filter((s) => s.sentAt >= fromMs && s.sentAt < toMs);
  const count = (outcome: FrameSample['outcome']) => inside.filter((s) => s.outcome === outcome).length;
  const latencies = inside
    .filter((s) => s.outcome === 'detected' && s.latencyMs !== undefined)
    .map((s) => s.latencyMs!)
    .sort((a, b) => a - b);
  const sent = inside.filter((s) => s.outcome !== 'skipped');
  const bytes = sent.reduce((sum, s) => sum + s.bytes, 0);
  const seconds = Math.max(0, toMs - fromMs) / 1000;
  const reasons: Record<string, number> = {};
  for (const s of inside) if (s.outcome === 'refused') reasons[s.reason ?? 'unknown'] = (reasons[s.reason ?? 'unknown'] ?? 0) + 1;
  return {
    fromS: (fromMs - originMs) / 1000,
    toS: (toMs - originMs) / 1000,
    sent: sent.length,
    detected: count('detected'),
    refused: count('refused'),
    lost: count('lost'),
    skipped: count('skipped'),
    detectionsPerS: seconds > 0 ? count('detected') / seconds : Number.NaN,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    max: latencies.length ? latencies[latencies.length - 1]! : Number.NaN,
    bytesPerFrame: sent.length ? bytes / sent.length : Number.NaN,
    bytesPerS: seconds > 0 ? bytes / seconds : Number.NaN,
    reasons,
  };
}

/** [originMs, endMs) cut into windows of `windowMs` (the last one shorter when it does not divide), each one's figures. */
export function windowFigures(
  samples: readonly FrameSample[],
  { originMs, endMs, windowMs }: { originMs: number; endMs: number; windowMs: number },
): PeriodFigures[] {
  if (!(windowMs > 0)) throw new Error(`window must be positive, got ${windowMs} ms`);
  const windows: PeriodFigures[] = [];
  for (let from = originMs; from < endMs; from += windowMs) {
    windows.push(periodFigures(samples, from, Math.min(from + windowMs, endMs), originMs));
  }
  return windows;
}

/**
 * Whether delay grew over the run: the last window's p95 minus the first's (ms), each over windows that
 * detected at least `minDetected` frames; undefined when fewer than two such windows.
 */
export function p95Growth(windows: readonly PeriodFigures[], minDetected = 5): number | undefined {
  const usable = windows.filter((w) => w.detected >= minDetected && Number.isFinite(w.p95));
  if (usable.length < 2) return undefined;
  return usable[usable.length - 1]!.p95 - usable[0]!.p95;
}

/** One run's frames and its measured period, as runWebRtcCell returns them. */
export interface MeasuredRun {
  samples: readonly FrameSample[];
  originMs: number;
  endMs: number;
}

/** A run's frames with the figures of its measured period, whole (the headline first) and per window of `windowS`. */
export interface MeasuredPeriod extends MeasuredRun {
  /** The shape bench:links rows take. */
  detectionsPerS: number;
  p50: number;
  p95: number;
  p99: number;
  bytesPerFrame: number;
  bytesPerS: number;
  /** Data channel: frames answered `dropped` or `error`; the track has no refusals. */
  refused: number;
  /** Frames with no reply within the timeout (the track: no result named them). */
  lost: number;
  /** The rest of the measured period's figures (sent, detected, skipped, max, reasons, ...). */
  figures: PeriodFigures;
  /** The same per `windowS` window of the measured period. */
  windows: PeriodFigures[];
  windowS: number;
  /** Every frame of the run (warm-up included), for a caller that pools halves. */
  samples: FrameSample[];
}

/** The figures of the period [originMs, endMs) of a run's frames, whole and per window of `windowS` seconds. */
export function measuredPeriod(
  samples: FrameSample[],
  { originMs, endMs, windowS }: { originMs: number; endMs: number; windowS: number },
): MeasuredPeriod {
  const figures = periodFigures(samples, originMs, endMs, originMs);
  const { detectionsPerS, p50, p95, p99, bytesPerFrame, bytesPerS, refused, lost } = figures;
  return {
    detectionsPerS,
    p50,
    p95,
    p99,
    bytesPerFrame,
    bytesPerS,
    refused,
    lost,
    figures,
    windows: windowFigures(samples, { originMs, endMs, windowMs: windowS * 1000 }),
    windowS,
    samples,
    originMs,
    endMs,
  };
}

/**
 * Several runs of the same row pooled: their measured periods laid end to end (each run's own clock shifted
 * so its period follows the last), so percentiles are over every frame and rates over the summed time.
 */
export function pooledFigures(runs: readonly MeasuredRun[]): PeriodFigures {
  if (runs.length === 0) throw new Error('no runs to pool');
  const pooled: FrameSample[] = [];
  let offset = 0;
  for (const run of runs) {
    for (const s of run.samples) {
      if (s.sentAt >= run.originMs && s.sentAt < run.endMs) pooled.push({ ...s, sentAt: s.sentAt - run.originMs + offset });
    }
    offset += run.endMs - run.originMs;
  }
  return periodFigures(pooled, 0, offset, 0);
}
