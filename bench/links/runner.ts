/**
 * Runs planned cells: link by link, every runnable row of a link in `rounds` interleaved rounds (A B C, then
 * C B A, ...), so a burst of load from elsewhere falls on every row of that link alike, and pools each cell's
 * rounds. A cell that fails (the gateway cannot decode its codec, a connection cannot be made) is reported
 * with the reason and the run goes on.
 */
import type { CellContext, CellMeasurement, FrameSource, LinkEntry, LinkPathKind, Measure, TransportRow } from './cell.ts';
import { figuresOf, pool } from './measurement.ts';
import { cellSeed, roundOrder, type PlannedCell } from './plan.ts';
import type { HelloMessage } from '@sightline/shared/protocol';
import { freshSeed } from '@sightline/shared/link';
import { withGateway } from '../cli.ts';
import { probeGateway } from '../client/probe.ts';
import { packetLinkUnavailable } from '../link/packet/packet-link.ts';
import { finishRun, fmt, gatewaySetup, startRun, type RunContext } from '../report.ts';

export interface CellOutcome {
  link: LinkEntry;
  row: Pick<TransportRow, 'id' | 'transport' | 'codec'>;
  /** What carried the link (absent for a skipped cell). */
  path?: LinkPathKind;
  measurement?: CellMeasurement;
  /** Why the cell did not run. */
  skipped?: string;
  /** Why it stopped (after any rounds it completed). */
  failed?: string;
}

export interface RunSettings {
  gatewayUrl: string;
  /** How much each round of a cell on `link` measures. */
  measure: (link: LinkEntry) => Measure;
  warmup: number;
  timeoutMs: number;
  frames: FrameSource;
  rounds: number;
  /** Every cell's seeds derive from it: printed, so a run can be replayed. */
  baseSeed: number;
  log?: (line: string) => void;
}

/** Runs every cell of `planned` (in its link order) and returns one outcome per cell, in the same order. */
export async function runCells(planned: readonly PlannedCell[], settings: RunSettings): Promise<CellOutcome[]> {
  const rounds = new Map<PlannedCell, CellMeasurement[]>();
  const failures = new Map<PlannedCell, string>();
  const started = performance.now();
  let done = 0;
  const links = [...new Set(planned.map((c) => c.link))];
  for (const link of links) {
    const cells = planned.filter((c) => c.link === link && 'path' in c.choice);
    for (let round = 0; round < settings.rounds; round++) {
      for (const cell of roundOrder(cells, round)) {
        if (failures.has(cell)) continue;
        const path = (cell.choice as { path: LinkPathKind }).path;
        const context: CellContext = {
          gatewayUrl: settings.gatewayUrl,
          link,
          path,
          seed: cellSeed(settings.baseSeed, planned.indexOf(cell), round),
          measure: settings.measure(link),
          warmup: settings.warmup,
          timeoutMs: settings.timeoutMs,
          frames: settings.frames,
        };
        try {
          const m = await cell.row.run(context);
          rounds.set(cell, [...(rounds.get(cell) ?? []), m]);
          const f = figuresOf(m);
          settings.log?.(
            `[${++done}] ${((performance.now() - started) / 1000).toFixed(0).padStart(5)} s  ${link.name.padEnd(14)} ${cell.row.id.padEnd(13)} ` +
              `${path.padEnd(8)} round ${round + 1}/${settings.rounds}: ${fmt(f.detectionsPerS, 2)} det/s, p50 ${fmt(f.p50)} ms` +
              `${f.refused ? `, refused ${f.refused}` : ''}${f.lost ? `, LOST ${f.lost}` : ''}`,
          );
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          failures.set(cell, reason);
          settings.log?.(`[${++done}] ${link.name} ${cell.row.id}: FAILED: ${reason}`);
        }
      }
    }
  }
  return planned.map((cell) => {
    const row = { id: cell.row.id, transport: cell.row.transport, codec: cell.row.codec };
    if ('skip' in cell.choice) return { link: cell.link, row, skipped: cell.choice.skip };
    const measured = rounds.get(cell);
    const outcome: CellOutcome = { link: cell.link, row, path: cell.choice.path };
    if (measured?.length) outcome.measurement = pool(measured);
    const failed = failures.get(cell);
    if (failed !== undefined) outcome.failed = failed;
    return outcome;
  });
}

export interface LinksRunOptions {
  url: string | undefined;
  threads: number;
  workers: number;
  seed: number | undefined;
  rounds: number;
  timeoutMs: number;
}

export interface LinksRunResult {
  outcomes: CellOutcome[];
  context: RunContext;
  /** What ran, for the context's list: the gateway, the packet path, the seeds. */
  details: string[];
  /** The gateway's start command and variable, then every round's command. */
  commands: string[];
}

/**
 * A run of `bench:links` or `bench:links-seeds` from start to end: the gateway (started here, or --url), its hello
 * (one throwaway run), the cells `plan` makes run in interleaved rounds, and where and when it all ran.
 */
export async function runOnGateway(
  options: LinksRunOptions,
  plan: (hello: HelloMessage | undefined, packetUnavailable: string | undefined) => PlannedCell[],
  settings: Pick<RunSettings, 'measure' | 'warmup' | 'frames'> & { describe: string },
  log: (line: string) => void,
): Promise<LinksRunResult> {
  const packetUnavailable = packetLinkUnavailable();
  const baseSeed = options.seed ?? freshSeed();
  const start = startRun();
  return withGateway(options, log, async (gateway) => {
    const hello = await probeGateway(gateway.url);
    const planned = plan(hello, packetUnavailable);
    const skipped = planned.filter((c) => 'skip' in c.choice).length;
    log(`base seed ${baseSeed}; ${planned.length} cells (${skipped} skipped), ${options.rounds} round(s)${settings.describe}`);
    const outcomes = await runCells(planned, {
      ...settings,
      gatewayUrl: gateway.url,
      rounds: options.rounds,
      timeoutMs: options.timeoutMs,
      baseSeed,
      log,
    });
    const g = gateway.settings;
    const model = hello?.defaultModel ? `, model ${hello.defaultModel}` : '';
    return {
      outcomes,
      context: finishRun(start),
      details: [
        `Gateway: ${g ? `a child process of the run, SIGHTLINE_THREADS=${g.threads} SIGHTLINE_WORKERS=${g.workers}` : 'given by --url'}${model}`,
        `Packet path: ${packetUnavailable === undefined ? 'available (root)' : `not available (${packetUnavailable})`}`,
        `Link seeds derive from ${baseSeed} (\`--seed ${baseSeed}\` replays every jitter and loss draw)`,
      ],
      commands: [...gatewaySetup(g, gateway.url), ...outcomes.flatMap((o) => o.measurement?.commands ?? [])],
    };
  });
}
