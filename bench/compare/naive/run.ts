/**
 * Runs the naive-client cells: every half is one client kind against one server, in the interleaved order of
 * the other comparisons (schedule.ts: within a cell, round-robin over the servers), with the busy loops
 * (hog.ts) started before each half of a busy cell and killed right after it. The benchmark client runs in
 * process on the inputs prepared once; the Python client as a child process on the same frames, written to
 * a folder. Says on stderr how each half went.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PythonEnv } from '@sightline/harness/process';
import { naiveClientCommand, runNaiveClient, type NaiveClientReport } from '../../baselines/naive-client.ts';
import type { BenchResult } from '../../client/run.ts';
import type { FrameInput } from '../../client/types.ts';
import type { BenchClient } from '../bench-client.ts';
import { interleavedSteps } from '../schedule.ts';
import type { RunningServer } from '../start-servers.ts';
import { benchHalfArgv, halfSeconds, NAIVE_WARMUP, type NaiveCell } from './cells.ts';
import { benchFigures, pythonFigures, refusedShare, type NaiveFigures } from './figures.ts';
import { commandLine, fmt } from '../../report.ts';
import type { CompareOptions } from '../options.ts';
import { startHogs, withHogsCommand } from './hog.ts';

/** A frame without a reply after this long counts as unanswered (s), as the benchmark client's default. */
export const NAIVE_TIMEOUT_S = 30;
/** The busy loops get going before the half starts (ms). */
const HOG_SETTLE_MS = 500;

export interface NaiveMeasured {
  /** [cell][server]: the server's halves of that cell pooled. */
  figures: NaiveFigures[][];
  /** Frames that got no answer, warm-up included: the run fails. */
  unanswered: number;
  /** Clients that could not connect or lost their connection, by half. */
  failures: string[];
  /** The Python client as it describes itself (websockets and Python versions); undefined when it never ran. */
  pythonClient: string | undefined;
}

export interface NaiveRunOptions {
  repeats: number;
  scale: number;
  /** Busy loops during the `hog` cells. */
  hogs: number;
  /** The frames the Python client sends (the benchmark client's inputs, written out). */
  framesDir: string;
  python: PythonEnv;
  log: (line: string) => void;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `clients[i]` (the benchmark client) drives `servers[i]`, on `inputs.get(clients[i])`. */
export async function runNaiveHalves(
  servers: readonly RunningServer[],
  clients: readonly BenchClient[],
  inputs: ReadonlyMap<BenchClient, readonly FrameInput[]>,
  cells: readonly NaiveCell[],
  options: NaiveRunOptions,
): Promise<NaiveMeasured> {
  const bench: BenchResult[][][] = cells.map(() => servers.map(() => []));
  const python: NaiveClientReport[][][] = cells.map(() => servers.map(() => []));
  const failures: string[] = [];
  const steps = interleavedSteps(cells.length, servers.length, options.repeats);
  const started = performance.now();
  for (const [n, step] of steps.entries()) {
    const server = servers[step.server]!;
    const cell = cells[step.cell]!;
    const label = `${server.plan.name}, ${cell.key} (half ${step.half + 1})`;
    const hogs = cell.load === 'hog' ? startHogs(options.hogs) : undefined;
    let figures: NaiveFigures;
    try {
      if (hogs) await sleep(HOG_SETTLE_MS);
      if (cell.client === 'bench') {
        const client = clients[step.server]!;
        const result = await client.runBenchmark(
          client.parseArgs(benchHalfArgv(cell, server.plan.name, server.url, options.scale, client.protocol)),
          inputs.get(client)!,
        );
        bench[step.cell]![step.server]!.push(result);
        figures = benchFigures([result]);
      } else {
        const report = await runNaiveClient(
          {
            url: server.url,
            clients: cell.clients,
            durationS: halfSeconds(cell, options.scale),
            warmup: NAIVE_WARMUP,
            timeoutS: NAIVE_TIMEOUT_S,
            framesDir: options.framesDir,
          },
          options.python,
        );
        python[step.cell]![step.server]!.push(report);
        figures = pythonFigures([report]);
      }
    } finally {
      await hogs?.stop();
    }
    failures.push(...figures.failures.map((f) => `${label}: ${f}`));
    const refused = figures.refused.dropped + figures.refused.error;
    options.log(
      `[${n + 1}/${steps.length}] ${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s  ${label.padEnd(44)} ` +
        `sent ${figures.sent}  refused ${refused} (${fmt(refusedShare(figures) * 100, 1)}%)  ${fmt(figures.detectionsPerS, 1)} det/s  ` +
        `p50 ${fmt(figures.latency.p50)} ms  p95 ${fmt(figures.latency.p95)}` +
        `${figures.unanswered ? `  UNANSWERED ${figures.unanswered}` : ''}${figures.failures.length ? '  CLIENT FAILED' : ''}`,
    );
  }
  const figures = cells.map((cell, c) =>
    servers.map((_, s) => (cell.client === 'bench' ? benchFigures(bench[c]![s]!) : pythonFigures(python[c]![s]!))),
  );
  const unanswered = figures.flat().reduce((sum, f) => sum + f.unanswered, 0);
  return { figures, unanswered, failures, pythonClient: python.flat(2)[0]?.client };
}

const EXTENSION: Record<string, string> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp' };

/** Writes the frames as files, in the order the benchmark client sends them (the Python client sends by name). */
export function writeFrames(dir: string, inputs: readonly FrameInput[]): void {
  mkdirSync(dir, { recursive: true });
  inputs.forEach((input, i) => {
    const base = input.name.replace(/\.[^.]*$/, '').replace(/[^\w.-]/g, '_');
    writeFileSync(join(dir, `${String(i).padStart(3, '0')}-${base}.${EXTENSION[input.contentType] ?? 'img'}`), input.bytes);
  });
}

/** One command per cell and server (one half), servers named by their variables, frames by $FRAMES. */
export function naiveCommands(
  cells: readonly NaiveCell[],
  servers: ReadonlyArray<{ name: string; variable: string; url: string; client: Pick<BenchClient, 'protocol' | 'checkout'> }>,
  options: Pick<CompareOptions, 'scale' | 'repeats' | 'hog'>,
): string[] {
  const urlNames = new Map(servers.map((s) => [s.url, s.variable]));
  const suffix = options.repeats > 1 ? `   # x${options.repeats}, interleaved` : '';
  return cells.flatMap((cell) =>
    servers.map((s) => {
      let command: string;
      if (cell.client === 'bench') {
        command = commandLine('pnpm bench', benchHalfArgv(cell, s.name, s.url, options.scale, s.client.protocol), urlNames);
        if (s.client.checkout) command = `(cd ${s.client.checkout} && ${command})`;
      } else {
        command = naiveClientCommand({
          url: `"$${s.variable}"`,
          clients: cell.clients,
          durationS: halfSeconds(cell, options.scale),
          warmup: NAIVE_WARMUP,
          timeoutS: NAIVE_TIMEOUT_S,
          framesDir: '"$FRAMES"',
        });
      }
      return withHogsCommand(command, cell.load === 'hog' ? options.hog : 0) + suffix;
    }),
  );
}
