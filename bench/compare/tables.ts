/**
 * The comparison's tables, in markdown: every server on every cell with the same columns, and for the rows
 * whose model ran on Triton the engine's own share of the gateway's inference time. Pure.
 */
import type { CellKey, CellSpec } from './cells.ts';
import { otherNotDetected, overloaded, type CellFigures } from './figures.ts';
import type { Role } from './plans.ts';
import { engineFigures, type EngineCounters } from './triton-metrics.ts';
import { fmt, int, mdTable, ms, pct } from '../report.ts';

/** One server's pooled figures on every cell, and what its engine counted (remote rows). */
export interface ServerResults {
  name: string;
  role: Role;
  cells: Record<CellKey, CellFigures>;
  engine?: Record<CellKey, EngineCounters> | undefined;
}

export const MEASURE_HEADER = [
  'server',
  'clients',
  'p50 ms',
  'p95 ms',
  'p99 ms',
  'detected frames/s',
  'sent',
  'refused overloaded (dropped / error)',
  'held (retryAfterMs)',
  'other not detected',
  'server ms p50',
  'inference ms p50',
];

export function measureTable(servers: readonly ServerResults[], cells: readonly CellSpec[]): string {
  const rows = cells.flatMap((cell) =>
    servers.map((s) => {
      const f = s.cells[cell.key];
      const o = f.summary;
      const over = overloaded(o);
      return [
        s.name,
        String(cell.clients),
        ms(o.latency.p50),
        ms(o.latency.p95),
        ms(o.latency.p99),
        fmt(o.throughputFps, 1),
        int(o.counts.sent),
        `${over.dropped} / ${over.error}`,
        String(f.held),
        otherNotDetected(o),
        ms(o.serverMs.p50),
        ms(o.inferenceMs.p50),
      ];
    }),
  );
  return mdTable(MEASURE_HEADER, rows);
}

export const ENGINE_HEADER = [
  'server',
  'clients',
  'engine requests',
  'frames per run',
  'in engine ms',
  'queue ms',
  'compute ms',
  'gateway inference ms (mean)',
  'hop ms',
  'engine share',
];

/** Remote rows only; empty when there are none. Means throughout: the engine's counters give no percentiles. */
export function engineTable(servers: readonly ServerResults[], cells: readonly CellSpec[]): string {
  const remote = servers.filter((s) => s.engine !== undefined);
  if (remote.length === 0) return '';
  const rows = cells.flatMap((cell) =>
    remote.map((s) => {
      const e = engineFigures(s.engine![cell.key]);
      const roundTrip = s.cells[cell.key].summary.inferenceMs.mean;
      return [
        s.name,
        String(cell.clients),
        int(e.requests) + (e.failures ? ` (${e.failures} failed)` : ''),
        fmt(e.meanBatch, 2),
        ms(e.engineMs),
        ms(e.queueMs),
        ms(e.computeMs),
        ms(roundTrip),
        ms(roundTrip - e.engineMs),
        pct(e.engineMs / roundTrip).replace(/^\+/, ''),
      ];
    }),
  );
  return mdTable(ENGINE_HEADER, rows);
}
