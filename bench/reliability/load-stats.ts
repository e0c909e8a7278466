/**
 * Figures of a load run that the benchmark's report does not give: the latency percentile per time window
 * (is it flat, or does it grow?), how evenly the clients were served, and the longest silence a client saw.
 */
import { percentile } from '@sightline/shared/stats';

/** p`q` of the values in each `windowMs` window of `at` (ms from the start), windows in order; empty windows NaN. */
export function windowPercentiles(
  samples: ReadonlyArray<{ at: number; value: number }>,
  windowMs: number,
  q: number,
  totalMs?: number,
): number[] {
  const end = totalMs ?? Math.max(0, ...samples.map((s) => s.at + 1e-9));
  const windows = Math.max(1, Math.ceil(end / windowMs));
  const buckets: number[][] = Array.from({ length: windows }, () => []);
  for (const s of samples) {
    const w = Math.min(windows - 1, Math.max(0, Math.floor(s.at / windowMs)));
    buckets[w]!.push(s.value);
  }
  return buckets.map((b) =>
    b.length
      ? percentile(
          b.sort((x, y) => x - y),
          q,
        )
      : Number.NaN,
  );
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
