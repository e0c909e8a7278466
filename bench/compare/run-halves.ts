/**
 * Runs the schedule: every half is the benchmark client in process (bench-client.ts), from the argv `pnpm bench`
 * would parse, on the inputs prepared once. Keeps each half's raw result (pooled later, figures.ts), the engine counters a
 * remote row's Triton moved during its halves, and what went unanswered or failed, and says on stderr how
 * each half went.
 *
 * The matrix's Runner runs a cell the same way, but hands back only summaries (percentiles cannot be pooled
 * from those) and fixes its own order (A B C, C B A); this keeps the raw results for the round-robin order.
 */
import { countOutcomes } from '../client/report.ts';
import type { BenchResult } from '../client/run.ts';
import type { FrameInput } from '../client/types.ts';
import type { BenchClient } from './bench-client.ts';
import { CELLS, halfArgv, type CellSpec } from './cells.ts';
import { poolHalves } from './figures.ts';
import { interleavedSteps } from './schedule.ts';
import type { RunningServer } from './start-servers.ts';
import { addCounters, counterDelta, readEngineCounters, ZERO_COUNTERS, type EngineCounters } from './triton-metrics.ts';
import { fmt } from '../report.ts';

export interface Measured {
  /** [cell][server]: the server's halves of that cell, in the order they ran. */
  results: BenchResult[][][];
  /** [cell][server]: what the server's Triton counted during those halves (warm-up frames included); undefined when local. */
  engine: Array<Array<EngineCounters | undefined>>;
  /** Frames that got no answer (warm-up included): the run fails. */
  unanswered: number;
  /** Clients that could not connect or lost their connection. */
  failures: string[];
}

/** `clients[i]` drives `servers[i]`, on `inputs.get(clients[i])`. */
export async function runHalves(
  servers: readonly RunningServer[],
  clients: readonly BenchClient[],
  inputs: ReadonlyMap<BenchClient, readonly FrameInput[]>,
  options: { repeats: number; scale: number; cells?: readonly CellSpec[]; log: (line: string) => void },
): Promise<Measured> {
  const cells = options.cells ?? CELLS;
  const measured: Measured = {
    results: cells.map(() => servers.map(() => [])),
    engine: cells.map(() => servers.map((s) => (s.engineMetricsUrl ? { ...ZERO_COUNTERS } : undefined))),
    unanswered: 0,
    failures: [],
  };
  const steps = interleavedSteps(cells.length, servers.length, options.repeats);
  const started = performance.now();
  for (const [n, step] of steps.entries()) {
    const server = servers[step.server]!;
    const cell = cells[step.cell]!;
    const client = clients[step.server]!;
    const config = client.parseArgs(halfArgv(cell, server.plan.name, server.url, options.scale));
    const metricsUrl = server.engineMetricsUrl;
    const before = metricsUrl ? await readEngineCounters(metricsUrl) : undefined;
    const result = await client.runBenchmark(config, inputs.get(client)!);
    if (metricsUrl && before) {
      const engine = measured.engine[step.cell]!;
      engine[step.server] = addCounters(engine[step.server]!, counterDelta(before, await readEngineCounters(metricsUrl)));
    }
    measured.results[step.cell]![step.server]!.push(result);

    const o = poolHalves([result]).summary;
    const warmupUnanswered = countOutcomes(result.repeats.flatMap((r) => r.samples.filter((f) => f.warmup))).unanswered;
    measured.unanswered += o.counts.unanswered + warmupUnanswered;
    for (const r of result.repeats) for (const f of r.clientFailures) measured.failures.push(`${config.label}: ${f}`);
    const refused = o.counts.dropped + o.counts.errors;
    options.log(
      `[${n + 1}/${steps.length}] ${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s  ` +
        `${`${config.label} (half ${step.half + 1})`.padEnd(52)} p50 ${fmt(o.latency.p50)} ms  p95 ${fmt(o.latency.p95)}  ` +
        `${fmt(o.throughputFps, 1)} det/s${refused ? `  refused ${refused}` : ''}` +
        `${o.counts.unanswered ? `  UNANSWERED ${o.counts.unanswered}` : ''}` +
        `${result.repeats.some((r) => r.clientFailures.length) ? '  CLIENT FAILED' : ''}`,
    );
  }
  return measured;
}
