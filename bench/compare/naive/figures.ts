/**
 * One server's figures on one naive-client cell, the same columns whichever client produced them: the
 * benchmark client's halves (pooled as the other comparisons pool them) or the Python client's reports (their
 * latency samples pooled). Pure: results in, numbers out.
 */
import { summarize, type Summary } from '@sightline/shared/stats';
import type { NaiveClientReport } from '../../baselines/naive-client.ts';
import { countOutcomes } from '../../client/report.ts';
import type { BenchResult } from '../../client/run.ts';
import { OVERLOAD_REASONS, poolHalves } from '../figures.ts';

export interface NaiveFigures {
  halves: number;
  /** Measured frames that went out. */
  sent: number;
  detections: number;
  /** Refused because the server was full: `dropped` / `overloaded`, and `error` / `overloaded`. */
  refused: { dropped: number; error: number };
  /** Every other answer that was not detections, by `outcome:reason` ("dropped:superseded", "error:bad_message", "other:binary"). */
  other: Record<string, number>;
  /** No answer within the timeout, or the connection lost (warm-up frames included). */
  unanswered: number;
  /** Measured wall time of the halves together (s). */
  wallS: number;
  detectionsPerS: number;
  /** Full-process latency of the frames answered with detections (ms). */
  latency: Summary;
  serverMs: Summary;
  /** Clients that could not connect or stopped early, with the reason. */
  failures: string[];
}

/** Refused over sent (0..1; NaN when nothing was sent). */
export function refusedShare(f: Pick<NaiveFigures, 'sent' | 'refused'>): number {
  return f.sent > 0 ? (f.refused.dropped + f.refused.error) / f.sent : Number.NaN;
}

export function benchFigures(results: readonly BenchResult[]): NaiveFigures {
  const { summary } = poolHalves(results);
  const other = Object.fromEntries(
    Object.entries(summary.reasons).filter(([reason]) => !(OVERLOAD_REASONS as readonly string[]).includes(reason)),
  );
  return {
    halves: results.length,
    sent: summary.counts.sent,
    detections: summary.counts.ok,
    refused: { dropped: summary.reasons['dropped:overloaded'] ?? 0, error: summary.reasons['error:overloaded'] ?? 0 },
    other,
    // Warm-up frames left unanswered count too: nothing a client sent may go unanswered.
    unanswered:
      summary.counts.unanswered +
      countOutcomes(results.flatMap((r) => r.repeats.flatMap((x) => x.samples.filter((f) => f.warmup)))).unanswered,
    wallS: summary.wallMs / 1000,
    detectionsPerS: summary.throughputFps,
    latency: summary.latency,
    serverMs: summary.serverMs,
    failures: results.flatMap((r) => r.repeats.flatMap((repeat) => repeat.clientFailures)),
  };
}

function add(into: Record<string, number>, key: string, n: number): void {
  if (n > 0) into[key] = (into[key] ?? 0) + n;
}

export function pythonFigures(reports: readonly NaiveClientReport[]): NaiveFigures {
  if (reports.length === 0) throw new Error('no halves to pool');
  const other: Record<string, number> = {};
  let sent = 0;
  let detections = 0;
  let unanswered = 0;
  let wallS = 0;
  const refused = { dropped: 0, error: 0 };
  const latency: number[] = [];
  const server: number[] = [];
  const failures: string[] = [];
  for (const report of reports) {
    wallS += report.wallS;
    for (const c of report.perClient) {
      sent += c.sent;
      detections += c.detections;
      unanswered += c.unanswered + c.warmupUnanswered;
      for (const [reason, n] of Object.entries(c.dropped))
        if (reason === 'overloaded') refused.dropped += n;
        else add(other, `dropped:${reason}`, n);
      for (const [code, n] of Object.entries(c.errors))
        if (code === 'overloaded') refused.error += n;
        else add(other, `error:${code}`, n);
      // Replies of another kind, by kind: `other:binary` is a server answering the raw image in MessagePack.
      for (const [kind, n] of Object.entries(c.otherKinds)) add(other, `other:${kind}`, n);
      latency.push(...c.samples.latencyMs);
      server.push(...c.samples.serverMs);
      if (c.closed !== null) failures.push(`client ${c.client}: ${c.closed}`);
    }
  }
  return {
    halves: reports.length,
    sent,
    detections,
    refused,
    other,
    unanswered,
    wallS,
    detectionsPerS: wallS > 0 ? detections / wallS : Number.NaN,
    latency: summarize(latency),
    serverMs: summarize(server),
    failures,
  };
}

/** "dropped:superseded 3, error:bad_message 2", or "none". */
export function otherText(f: Pick<NaiveFigures, 'other'>): string {
  const parts = Object.entries(f.other)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([k, n]) => `${k} ${n}`);
  return parts.length ? parts.join(', ') : 'none';
}
