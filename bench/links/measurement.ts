/**
 * A cell's figures: from the benchmark client's samples to the totals a round is kept as, rounds pooled by
 * adding totals up, and the table's figures derived from the pool. Pure.
 */
import { percentile } from '@sightline/shared/stats';
import { UNANSWERED, type FrameMeasurement } from '../client/types.ts';
import type { CellMeasurement } from './cell.ts';

/** The measured-phase samples of one benchmark-client run as a round's totals. */
export function measurementOf(samples: readonly FrameMeasurement[], wallMs: number, commands: string[]): CellMeasurement {
  const measured = samples.filter((s) => !s.warmup && s.outcome !== 'held');
  const reasons: Record<string, number> = {};
  const m: CellMeasurement = {
    sent: measured.length,
    ok: 0,
    refused: 0,
    lost: 0,
    reasons,
    wallMs,
    latenciesMs: [],
    serverMs: [],
    answered: 0,
    answeredBytesUp: 0,
    answeredBytesDown: 0,
    sentBytesUp: 0,
    commands,
  };
  for (const s of measured) {
    m.sentBytesUp += s.bytesUp;
    if (UNANSWERED.has(s.outcome)) {
      m.lost++;
      reasons[s.outcome] = (reasons[s.outcome] ?? 0) + 1;
      continue;
    }
    m.answered++;
    m.answeredBytesUp += s.bytesUp;
    m.answeredBytesDown += s.bytesDown;
    if (s.outcome === 'ok') {
      m.ok++;
      m.latenciesMs.push(s.latencyMs);
      if (s.serverMs !== undefined) m.serverMs.push(s.serverMs);
    } else {
      m.refused++;
      const reason = `${s.outcome}:${s.errorCode ?? 'unknown'}`;
      reasons[reason] = (reasons[reason] ?? 0) + 1;
    }
  }
  return m;
}

/** Rounds of one cell as one measurement: totals added, samples joined, commands kept in order. */
export function pool(rounds: readonly CellMeasurement[]): CellMeasurement {
  const reasons: Record<string, number> = {};
  for (const r of rounds) for (const [k, v] of Object.entries(r.reasons)) reasons[k] = (reasons[k] ?? 0) + v;
  const sum = (key: 'sent' | 'ok' | 'refused' | 'lost' | 'wallMs' | 'answered' | 'answeredBytesUp' | 'answeredBytesDown' | 'sentBytesUp') =>
    rounds.reduce((a, r) => a + r[key], 0);
  return {
    sent: sum('sent'),
    ok: sum('ok'),
    refused: sum('refused'),
    lost: sum('lost'),
    reasons,
    wallMs: sum('wallMs'),
    latenciesMs: rounds.flatMap((r) => r.latenciesMs),
    serverMs: rounds.flatMap((r) => r.serverMs),
    answered: sum('answered'),
    answeredBytesUp: sum('answeredBytesUp'),
    answeredBytesDown: sum('answeredBytesDown'),
    sentBytesUp: sum('sentBytesUp'),
    commands: rounds.flatMap((r) => r.commands),
  };
}

/** What the table shows of a cell. NaN where there is nothing to show (no frame answered). */
export interface CellFigures {
  /** Frames answered with detections per second of the measured phase. */
  detectionsPerS: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  /** Median and mean of the gateway's own time (serverMs) for those frames. */
  serverP50: number;
  serverMean: number;
  bytesUpPerFrame: number;
  bytesDownPerFrame: number;
  /** Bytes up per second of the measured phase (every frame sent, lost ones included). */
  bytesUpPerS: number;
  sent: number;
  ok: number;
  refused: number;
  lost: number;
}

export function figuresOf(m: CellMeasurement): CellFigures {
  const sorted = [...m.latenciesMs].sort((a, b) => a - b);
  const server = [...m.serverMs].sort((a, b) => a - b);
  const seconds = m.wallMs / 1000;
  const at = (p: number) => (sorted.length ? percentile(sorted, p) : Number.NaN);
  return {
    detectionsPerS: seconds > 0 ? m.ok / seconds : Number.NaN,
    p50: at(50),
    p95: at(95),
    p99: at(99),
    mean: sorted.length ? sorted.reduce((a, b) => a + b, 0) / sorted.length : Number.NaN,
    serverP50: server.length ? percentile(server, 50) : Number.NaN,
    serverMean: server.length ? server.reduce((a, b) => a + b, 0) / server.length : Number.NaN,
    bytesUpPerFrame: m.answered ? m.answeredBytesUp / m.answered : Number.NaN,
    bytesDownPerFrame: m.answered ? m.answeredBytesDown / m.answered : Number.NaN,
    bytesUpPerS: seconds > 0 ? m.sentBytesUp / seconds : Number.NaN,
    sent: m.sent,
    ok: m.ok,
    refused: m.refused,
    lost: m.lost,
  };
}
