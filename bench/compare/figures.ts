/**
 * One server's figures on one cell: its halves' samples pooled (percentiles over every measured frame, not
 * averages of halves), then the columns of the comparison table. Pure: benchmark results in, numbers out.
 */
import { summarizeResults, type RunSummary } from '../client/report.ts';
import type { BenchResult } from '../client/run.ts';

/** The refusals a gateway gives when it is full: shed on receipt past its latency budget, or past maxPending. */
export const OVERLOAD_REASONS = ['dropped:overloaded', 'error:overloaded'] as const;

export interface CellFigures {
  summary: RunSummary;
  /** Halves pooled. */
  halves: number;
  /**
   * Frames the client waited on before sending the next: refusals that carried `retryAfterMs` (stop-and-wait
   * clients wait that long), plus open-loop frames never sent for it (`held`).
   */
  held: number;
}

/** Pools the measured frames of every half (as the matrix's Runner.interleaved pools its rounds). */
export function poolHalves(results: readonly BenchResult[]): CellFigures {
  if (results.length === 0) throw new Error('no halves to pool');
  const samples = results.flatMap((r) => r.repeats.flatMap((repeat) => repeat.samples));
  const summary = summarizeResults(results);
  const waited = samples.filter((s) => !s.warmup && s.outcome !== 'ok' && s.outcome !== 'held' && s.retryAfterMs !== undefined).length;
  return { summary, halves: results.length, held: waited + summary.counts.held };
}

export function overloaded(o: RunSummary): { dropped: number; error: number } {
  return { dropped: o.reasons['dropped:overloaded'] ?? 0, error: o.reasons['error:overloaded'] ?? 0 };
}

/** What else was not detected (the reasons but `left`), by outcome and reason ("dropped:superseded 3, unanswered 1"), or "none". */
export function otherNotDetected(o: RunSummary, left: readonly string[] = OVERLOAD_REASONS): string {
  const parts = Object.entries(o.reasons)
    .filter(([reason]) => !left.includes(reason))
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([reason, n]) => `${reason} ${n}`);
  if (o.counts.unanswered) parts.push(`unanswered ${o.counts.unanswered}`);
  return parts.length ? parts.join(', ') : 'none';
}
