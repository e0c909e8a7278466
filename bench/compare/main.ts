/**
 * `pnpm bench:compare`: several servers measured on the same work, interleaved, in one run, and one table.
 *
 *   --preset ab --before DIR   this checkout's gateway against an older checkout's (the A/B of a change)
 *   --preset engine            the gateway inferring locally (batch 1 and N) and on a real Triton (dynamic
 *                              batching on and off), beside the FastAPI + OpenCV peer (issue 21)
 *   --preset naive             naive stop-and-wait clients on the gateway and the OpenCV peer, idle and beside
 *                              busy loops (issue 29; its own cells and section, naive/)
 *   --preset webrtc            the gateway's WebRTC paths and the Python aiortc peer on loopback and on links, or a
 *                              --duration long run (issue 28; its own cells and sections, webrtc/)
 *
 * A preset is data ({@link PRESETS}): the servers it starts (plans.ts), how it measures them and its section. The
 * cells of ab and engine: the matrix's 1-client stop-and-wait cell and 6 such clients (cells.ts), each in --repeats
 * halves per server, round-robin over the servers (schedule.ts), samples pooled (figures.ts). Prints the section;
 * with --write it replaces the preset's block in docs/runs/<preset>.md. Every server is a child process on a free
 * loopback port, started before the first half and stopped after the last (or on Ctrl-C). Exit 1 when a frame
 * went unanswered, a client failed or a server was left out.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { naiveClientPython } from '../baselines/naive-client.ts';
import { commandArgv, runIfEntry, stopOnSignal } from '../cli.ts';
import type { FrameInput } from '../client/types.ts';
import { DEFAULT_GATEWAY_DIR } from '../reliability/gateway-under-test.ts';
import { finishRun, publishSection, startRun } from '../report.ts';
import { clientsFor, CURRENT_CLIENT, type BenchClient } from './bench-client.ts';
import { CELLS, COMMON_ARGV, halfCommands, type CellKey } from './cells.ts';
import { describeCheckout } from './checkout.ts';
import { compareSection, type CompareContext } from './document.ts';
import { poolHalves, type CellFigures } from './figures.ts';
import { naiveCells } from './naive/cells.ts';
import { naiveSection } from './naive/document.ts';
import { naiveCommands, runNaiveHalves, writeFrames } from './naive/run.ts';
import { CompareArgsError, CompareHelpShown, parseCompareArgs, type CompareOptions, type Preset } from './options.ts';
import { presetPlans, setupLines } from './plans.ts';
import { probeProblem } from './probe.ts';
import { runHalves } from './run-halves.ts';
import { startServers, stopServers, type RunningServer } from './start-servers.ts';
import type { ServerResults } from './tables.ts';
import type { EngineCounters } from './triton-metrics.ts';
import { webrtcSection } from './webrtc/document.ts';
import { CELL_ROWS, LONG_RUN_ROWS } from './webrtc/rows.ts';
import { chooseLinkPath, halfSeconds, LONG_RUN_WINDOW_S, runWebRtcLinks, sectionName, WEBRTC_CELL_DEFAULTS } from './webrtc/run.ts';
import { prepareClip } from '../webrtc/clip.ts';

type Log = (line: string) => void;

interface Outcome {
  block: string;
  exitCode: number;
}

/** The servers of a preset, up, each proven to detect, with the client that drives it and that client's frames. */
interface Measurable {
  servers: RunningServer[];
  clientOf: Map<RunningServer, BenchClient>;
  inputs: Map<BenchClient, FrameInput[]>;
  /** The model the servers serve (a Triton's own, or the first server's default). */
  model: string;
  /** Servers left out, with the reason. */
  notMeasured: string[];
}

/**
 * Starts the preset's servers, prepares each client's frames once, drops a peer that does not detect (a gateway
 * that does not fails the run: the comparison is about it), runs `measure`, and stops them all however it ends.
 */
async function withServers<T>(options: CompareOptions, log: Log, extra: string, measure: (m: Measurable) => Promise<T>): Promise<T> {
  const plans = presetPlans(options);
  const clients = await clientsFor(plans, options.client);
  plans.forEach((plan, i) => log(`${plan.name}: driven by ${clients[i]!.description}${extra}`));
  const started: RunningServer[] = [];
  const unlisten = stopOnSignal(() => started);
  let servers: RunningServer[] = [];
  try {
    const { running, notStarted } = await startServers(plans, log).catch((error: unknown) => {
      throw new Error(`a server did not start: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    });
    servers = running;
    started.push(...running);
    const notMeasured = notStarted.map(({ plan, reason }) => `${plan.name} did not start: ${reason}`);
    const clientOf = new Map(servers.map((s) => [s, clients[plans.indexOf(s.plan)]!]));
    const inputs = new Map<BenchClient, FrameInput[]>();
    for (const client of new Set(clients)) {
      const config = client.parseArgs([...COMMON_ARGV]);
      inputs.set(client, await client.loadInputs({ source: config.input, resize: config.resize, quality: config.quality }));
    }
    for (const server of [...servers]) {
      const problem = await probeProblem(clientOf.get(server)!, server, inputs.get(clientOf.get(server)!)!);
      if (problem === undefined) continue;
      if (server.plan.kind !== 'peer') throw new Error(`${server.plan.name} ${problem}`);
      log(`${server.plan.name} ${problem}: measured without it`);
      notMeasured.push(`${server.plan.name} ${problem}`);
      await server.stop();
      servers.splice(servers.indexOf(server), 1);
    }
    const model = servers.find((s) => s.engineModel)?.engineModel ?? (await clients[0]!.fetchModels(servers[0]!.url)).defaultModel;
    return await measure({ servers, clientOf, inputs, model, notMeasured });
  } finally {
    unlisten();
    await stopServers(servers);
  }
}

/** The section, and exit 1 when a frame went unanswered, a client failed or a server was left out. */
function outcome(
  block: string,
  measured: { unanswered: number; failures: readonly string[] },
  notMeasured: readonly string[],
  log: Log,
): Outcome {
  for (const n of notMeasured) log(`not measured: ${n}`);
  return { block, exitCode: measured.unanswered || measured.failures.length || notMeasured.length ? 1 : 0 };
}

async function contextOf(options: CompareOptions, start: ReturnType<typeof startRun>): Promise<CompareContext> {
  const checkouts =
    options.before === undefined
      ? undefined
      : { before: await describeCheckout(options.before), after: await describeCheckout(DEFAULT_GATEWAY_DIR) };
  return { ...finishRun(start), checkouts };
}

/** ab and engine: the two cells in halves, every server driven by the benchmark client. */
async function runCellComparison(options: CompareOptions, log: Log): Promise<Outcome> {
  const start = startRun();
  return withServers(options, log, '', async ({ servers, clientOf, inputs, model, notMeasured }) => {
    log(`measuring ${servers.length} servers, ${options.repeats} halves per cell each, interleaved...`);
    const clients = servers.map((s) => clientOf.get(s)!);
    const measured = await runHalves(servers, clients, inputs, { repeats: options.repeats, scale: options.scale, log });
    const results: ServerResults[] = servers.map((server, s) => ({
      name: server.plan.name,
      role: server.plan.role,
      cells: Object.fromEntries(CELLS.map((cell, c) => [cell.key, poolHalves(measured.results[c]![s]!)])) as Record<CellKey, CellFigures>,
      engine: server.engineMetricsUrl
        ? (Object.fromEntries(CELLS.map((cell, c) => [cell.key, measured.engine[c]![s]!])) as Record<CellKey, EngineCounters>)
        : undefined,
    }));
    const block = compareSection({
      options,
      context: await contextOf(options, start),
      servers: results,
      clients,
      setup: setupLines(
        servers.map((s) => s.plan),
        model,
      ),
      commands: halfCommands(
        servers.map((s) => ({ name: s.plan.name, variable: s.plan.variable, url: s.url, checkout: clientOf.get(s)!.checkout })),
        options,
      ),
      unanswered: measured.unanswered,
      failures: measured.failures,
      notMeasured,
    });
    return outcome(block, measured, notMeasured, log);
  });
}

/** naive: both naive clients x 1 and 6 clients x idle and busy, the Python client on the frames written to a folder. */
async function runNaiveComparison(options: CompareOptions, log: Log): Promise<Outcome> {
  const start = startRun();
  log('making the Python client its venv (a no-op when current)...');
  const python = await naiveClientPython();
  const framesDir = options.framesDir ?? mkdtempSync(join(tmpdir(), 'sightline-naive-frames-'));
  const cells = naiveCells(options.hog);
  try {
    return await withServers(options, log, ' and the Python client', async ({ servers, clientOf, inputs, model, notMeasured }) => {
      writeFrames(framesDir, inputs.get(inputs.has(CURRENT_CLIENT) ? CURRENT_CLIENT : [...inputs.keys()][0]!)!);
      log(`measuring ${servers.length} servers x ${cells.length} cells, ${options.repeats} halves each, interleaved...`);
      const clients = servers.map((s) => clientOf.get(s)!);
      const settings = { repeats: options.repeats, scale: options.scale, hogs: options.hog, framesDir, python, log };
      const measured = await runNaiveHalves(servers, clients, inputs, cells, settings);
      const block = naiveSection({
        options,
        context: await contextOf(options, start),
        cells,
        servers: servers.map((s, i) => ({ name: s.plan.name, role: s.plan.role, cells: measured.figures.map((row) => row[i]!) })),
        benchClient: [...new Set(clients.map((c) => c.description))].join(' / '),
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
      return outcome(block, measured, notMeasured, log);
    });
  } finally {
    if (options.framesDir === undefined) rmSync(framesDir, { recursive: true, force: true });
  }
}

/** webrtc: every row on every link in halves, or each video-track row once for --duration seconds. */
async function runWebRtcComparison(options: CompareOptions, log: Log): Promise<Outcome> {
  const start = startRun();
  const long = options.durationS !== undefined;
  const { path: linkPath, why } = chooseLinkPath(options.linkPath);
  const needsLinks = options.links.some((spec) => spec.trim() !== 'none');
  log(needsLinks ? `links through the ${linkPath === 'packet' ? 'packet path' : 'UDP relay'} (${why})` : 'loopback only');
  log(`making the ${options.fps} fps clip (the fixture photos as a moving slideshow) and its JPEG frames...`);
  const clip = await prepareClip(options.fps, { jpegs: !long });
  const halfS = long ? options.durationS! : halfSeconds(options.scale);
  const windowS = long ? LONG_RUN_WINDOW_S : WEBRTC_CELL_DEFAULTS.windowS;
  let links;
  try {
    links = await runWebRtcLinks({
      links: options.links,
      rows: long ? LONG_RUN_ROWS : CELL_ROWS,
      repeats: long ? 1 : options.repeats,
      halfS,
      warmupS: WEBRTC_CELL_DEFAULTS.warmupS,
      fps: options.fps,
      windowS,
      linkPath,
      // A long run counts every result that comes back while it lasts, however late: the delay is what it shows.
      trackTimeoutMs: long ? halfS * 1000 : undefined,
      clip,
      threads: options.threads,
      workers: options.workers,
      log,
    });
  } finally {
    clip.dispose();
  }
  const block = webrtcSection({
    options,
    context: finishRun(start),
    links,
    linkPath,
    linkPathWhy: why,
    halfS,
    warmupS: WEBRTC_CELL_DEFAULTS.warmupS,
    windowS,
    threads: options.threads,
    workers: options.workers,
  });
  const failed = links.flatMap((l) => l.rows).some((r) => r.failures.length > 0);
  const leftOut = links.some((l) => l.notMeasured.length > 0);
  return { block, exitCode: failed || leftOut ? 1 : 0 };
}

/** The presets: how each runs and the section it writes. */
export const PRESETS: Readonly<
  Record<Preset, { run: (options: CompareOptions, log: Log) => Promise<Outcome>; section: (o: CompareOptions) => string }>
> = {
  ab: { run: runCellComparison, section: () => 'ab' },
  engine: { run: runCellComparison, section: () => 'engine' },
  naive: { run: runNaiveComparison, section: () => 'naive' },
  webrtc: { run: runWebRtcComparison, section: sectionName },
};

async function main(): Promise<number> {
  let options: CompareOptions;
  try {
    options = parseCompareArgs(commandArgv(), { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) });
  } catch (error) {
    if (error instanceof CompareHelpShown) return 0;
    if (error instanceof CompareArgsError) {
      process.stderr.write(`pnpm bench:compare: ${error.message} (see --help)\n`);
      return 2;
    }
    throw error;
  }
  const log: Log = (line) => process.stderr.write(`${line}\n`);
  const preset = PRESETS[options.preset];
  const { block, exitCode } = await preset.run(options, log);
  process.stdout.write(`${block}\n`);
  if (options.write) publishSection(preset.section(options), block, options.out);
  return exitCode;
}

runIfEntry(import.meta.url, 'compare', main);
