/**
 * Figures of a load run that the benchmark's report does not give: what the frames got and their latency
 * percentiles per window of scheduled send time (flat, or growing? a server whose queues, heap or caches
 * grow shows it as a rising p95 long before anything fails), how evenly the clients were served, and the
 * longest silence a client saw. Used by the soak and by `pnpm bench:stability`.
 */
import { percentile } from '@sightline/shared/stats';
import { UNANSWERED, type FrameMeasurement } from '../client/types.ts';

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

/** Largest over smallest count: 1 is perfectly even; Infinity when a client got nothing. */
export function shareRatio(counts: readonly number[]): number {
  if (counts.length === 0) return Number.NaN;
  const max = Math.max(...counts);
  const min = Math.min(...counts);
  return min === 0 ? (max === 0 ? 1 : Number.POSITIVE_INFINITY) : max / min;
}

/** The longest gap between consecutive times (and from `from` to the first, and the last to `to`, when given). */
export function maxGap(times: readonly number[], from?: number, to?: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  if (from !== undefined) sorted.unshift(from);
  if (to !== undefined) sorted.push(to);
  let gap = 0;
  for (let i = 1; i < sorted.length; i++) gap = Math.max(gap, sorted[i]! - sorted[i - 1]!);
  return gap;
}

/** Counts of each key. */
export function countBy<T>(items: readonly T[], key: (item: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of items) {
    const k = key(item);
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

export function formatCounts(counts: Record<string, number>): string {
  const entries = Object.entries(counts).sort((a, b) => b[1] - a[1]);
  return entries.length ? entries.map(([k, v]) => `${k} ${v.toLocaleString('en-US')}`).join(', ') : 'none';
}
