/**
 * Is an open-loop run stable? Frames grouped into windows of their scheduled send time (a minute, by
 * default), each window's outcomes and latency percentiles, and the last window's p95 over the first's: a
 * server whose queues, heap or caches grow shows it as a rising p95 long before anything fails.
 */
import { percentile } from '@sightline/shared/stats';
import { UNANSWERED, type FrameMeasurement } from './client/types.ts';

export interface WindowFigures {
  /** Window start and end, seconds from the start of the measured phase. */
  fromS: number;
  toS: number;
  sent: number;
  detected: number;
  /** Answered `dropped` or `error`. */
  refused: number;
  unanswered: number;
  /** Latency of detected frames from their scheduled send time, ms (NaN when none). */
  p50: number;
  p95: number;
  p99: number;
}

/** Measured frames by window of `windowMs`, over `totalMs` (a frame scheduled at the very end counts in the last). */
export function windowFigures(samples: readonly FrameMeasurement[], windowMs: number, totalMs: number): WindowFigures[] {
  const count = Math.max(1, Math.ceil(totalMs / windowMs - 1e-9));
  const windows = Array.from({ length: count }, () => [] as FrameMeasurement[]);
  for (const s of samples) {
    if (s.warmup) continue;
    windows[Math.min(count - 1, Math.max(0, Math.floor(s.startMs / windowMs)))]!.push(s);
  }
  return windows.map((frames, i) => {
    const latencies = frames
      .filter((f) => f.outcome === 'ok')
      .map((f) => f.latencyMs)
      .sort((a, b) => a - b);
    const unanswered = frames.filter((f) => UNANSWERED.has(f.outcome)).length;
    return {
      fromS: (i * windowMs) / 1000,
      toS: Math.min(totalMs, (i + 1) * windowMs) / 1000,
      sent: frames.length,
      detected: latencies.length,
      refused: frames.length - latencies.length - unanswered,
      unanswered,
      p50: percentile(latencies, 50),
      p95: percentile(latencies, 95),
      p99: percentile(latencies, 99),
    };
  });
}

/** The last window's p95 over the first's (NaN with fewer than two windows or an empty one). */
export function p95Drift(windows: readonly WindowFigures[]): number {
  if (windows.length < 2) return Number.NaN;
  return windows[windows.length - 1]!.p95 / windows[0]!.p95;
}
