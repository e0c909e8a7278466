/**
 * `pnpm bench:compare --preset naive`: naive stop-and-wait clients (the benchmark client ignoring
 * `retryAfterMs`, and the plain Python `websockets` client sending raw JPEGs) x 1 and 6 clients x the machine
 * idle or with `--hog` busy loops, against this gateway (and an older one with `--before`) and the FastAPI +
 * OpenCV peer, interleaved as the other presets are. Prints its section; `--write` replaces
 * `<!-- naive:begin -->` .. `<!-- naive:end -->` in docs/runs/naive.md. Exit 1 when a frame went unanswered,
 * a client failed or a server was left out.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { naiveClientCommand, naiveClientPython } from '../../baselines/naive-client.ts';
import type { FrameInput } from '../../client/types.ts';
import { writeSection } from '../../doc-section.ts';
import { CURRENT_CLIENT, clientsFor, type BenchClient } from '../bench-client.ts';
import { COMMON_ARGV } from '../cells.ts';
import { benchCommand } from '../commands.ts';
import type { CompareOptions } from '../options.ts';
import { presetPlans, setupLines } from '../plans.ts';
import { probeProblem } from '../probe.ts';
import { runContext } from '../run-context.ts';
import { startServers, stopServers, type RunningServer } from '../start-servers.ts';
import { benchHalfArgv, halfSeconds, NAIVE_WARMUP, naiveCells, type NaiveCell } from './cells.ts';
import { naiveSection } from './document.ts';
import { withHogsCommand } from './hog.ts';
import { NAIVE_TIMEOUT_S, runNaiveHalves } from './run.ts';

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
        command = benchCommand(benchHalfArgv(cell, s.name, s.url, options.scale, s.client.protocol), urlNames);
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

export async function runNaiveComparison(options: CompareOptions, log: (line: string) => void): Promise<number> {
  const startedAt = performance.now();
  const loadBefore = loadavg()[0]!;
  const plans = presetPlans(options);
  const clients = await clientsFor(plans, options.client);
  plans.forEach((plan, i) => log(`${plan.name}: driven by ${clients[i]!.description} and the Python client`));
  log('making the Python client its venv (a no-op when current)...');
  const python = await naiveClientPython();
  const framesDir = options.framesDir ?? mkdtempSync(join(tmpdir(), 'sightline-naive-frames-'));

  const started: RunningServer[] = [];
  const onSignal = () => void stopServers(started).finally(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const notMeasured: string[] = [];
  const { running, notStarted } = await startServers(plans, log);
  const servers = running;
  started.push(...servers);
  for (const { plan, reason } of notStarted) notMeasured.push(`${plan.name} did not start: ${reason}`);
  const clientOf = new Map(servers.map((s) => [s, clients[plans.indexOf(s.plan)]!]));
  const cells = naiveCells(options.hog);
  let measured;
  let model: string;
  try {
    const inputs = new Map<BenchClient, FrameInput[]>();
    for (const client of new Set(clients)) {
      const config = client.parseArgs([...COMMON_ARGV]);
      inputs.set(client, await client.loadInputs({ source: config.input, resize: config.resize, quality: config.quality }));
    }
    writeFrames(framesDir, inputs.get(inputs.has(CURRENT_CLIENT) ? CURRENT_CLIENT : clients[0]!)!);
    for (const server of [...servers]) {
      const client = clientOf.get(server)!;
      const problem = await probeProblem(client, server, inputs.get(client)!);
      if (problem === undefined) continue;
      if (server.plan.kind !== 'peer') throw new Error(`${server.plan.name} ${problem}`);
      log(`${server.plan.name} ${problem}: measured without it`);
      notMeasured.push(`${server.plan.name} ${problem}`);
      await server.stop();
      servers.splice(servers.indexOf(server), 1);
    }
    model = (await clients[0]!.fetchModels(servers[0]!.url)).defaultModel;
    log(`measuring ${servers.length} servers x ${cells.length} cells, ${options.repeats} halves each, interleaved...`);
    measured = await runNaiveHalves(
      servers,
      servers.map((s) => clientOf.get(s)!),
      inputs,
      cells,
      { repeats: options.repeats, scale: options.scale, hogs: options.hog, framesDir, python, log },
    );
  } finally {
    await stopServers(servers);
    if (options.framesDir === undefined) rmSync(framesDir, { recursive: true, force: true });
  }

  const benchClients = [...new Set(servers.map((s) => clientOf.get(s)!.description))];
  const block = naiveSection({
    options,
    context: await runContext(options, loadBefore, startedAt),
    cells,
    servers: servers.map((s, i) => ({ name: s.plan.name, role: s.plan.role, cells: measured.figures.map((row) => row[i]!) })),
    benchClient: benchClients.join(' / '),
    pythonClient: measured.pythonClient,
    setup: [
      ...setupLines(
        servers.map((s) => s.plan),
        model,
      ),
      `# FRAMES: the fixture photos at 640x480, JPEG q80 (pnpm bench:compare --preset naive --frames-dir DIR writes them to DIR)`,
    ],
    commands: naiveCommands(
      cells,
      servers.map((s) => ({ name: s.plan.name, variable: s.plan.variable, url: s.url, client: clientOf.get(s)! })),
      options,
    ),
    unanswered: measured.unanswered,
    failures: measured.failures,
    notMeasured,
  });
  process.stdout.write(`${block}\n`);
  if (options.write) {
    log(`wrote the naive section of ${writeSection('naive', block, options.out)}`);
  }
  for (const f of measured.failures) log(`client failure: ${f}`);
  for (const n of notMeasured) log(`not measured: ${n}`);
  return measured.unanswered || measured.failures.length || notMeasured.length ? 1 : 0;
}
