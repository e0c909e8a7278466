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
 * Cells: the matrix's 1-client stop-and-wait cell and 6 such clients (cells.ts), each in --repeats halves per
 * server, round-robin over the servers (schedule.ts), samples pooled (figures.ts). Prints the section; with
 * --write it replaces `<!-- ab:begin -->` .. `<!-- ab:end -->` in docs/runs/ab.md (or `engine` in docs/runs/engine.md).
 *
 * Every server is a child process on a free loopback port, started before the first half and stopped after
 * the last (or on Ctrl-C). Every half is bounded: a frame count, or seconds, and the client's per-frame timeout.
 */
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FrameInput } from '../client/types.ts';
import { writeSection } from '../doc-section.ts';
import { clientsFor, type BenchClient } from './bench-client.ts';
import { CELLS, COMMON_ARGV, type CellKey } from './cells.ts';
import { halfCommands } from './commands.ts';
import { compareSection } from './document.ts';
import { poolHalves, type CellFigures } from './figures.ts';
import { runNaiveComparison } from './naive/main.ts';
import { CompareArgsError, CompareHelpShown, parseCompareArgs } from './options.ts';
import { presetPlans, setupLines } from './plans.ts';
import { probeProblem } from './probe.ts';
import { runContext } from './run-context.ts';
import { runHalves, type Measured } from './run-halves.ts';
import { runWebRtcComparison } from './webrtc/main.ts';
import { startServers, stopServers, type RunningServer } from './start-servers.ts';
import type { ServerResults } from './tables.ts';
import type { EngineCounters } from './triton-metrics.ts';

const log = (line: string) => process.stderr.write(`${line}\n`);

function results(servers: readonly RunningServer[], measured: Measured): ServerResults[] {
  return servers.map((server, s) => {
    const cells = Object.fromEntries(CELLS.map((cell, c) => [cell.key, poolHalves(measured.results[c]![s]!)])) as Record<
      CellKey,
      CellFigures
    >;
    const engine = server.engineMetricsUrl
      ? (Object.fromEntries(CELLS.map((cell, c) => [cell.key, measured.engine[c]![s]!])) as Record<CellKey, EngineCounters>)
      : undefined;
    return { name: server.plan.name, role: server.plan.role, cells, engine };
  });
}

async function main(argv: readonly string[]): Promise<number> {
  const options = parseCompareArgs(argv, { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) });
  if (options.preset === 'naive') return runNaiveComparison(options, log);
  if (options.preset === 'webrtc') return runWebRtcComparison(options, log);
  const startedAt = performance.now();
  const loadBefore = loadavg()[0]!;
  const plans = presetPlans(options);
  const clients = await clientsFor(plans, options.client);
  plans.forEach((plan, i) => log(`${plan.name}: driven by ${clients[i]!.description}`));
  const started: RunningServer[] = [];
  const onSignal = () => void stopServers(started).finally(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  let servers: RunningServer[];
  const notMeasured: string[] = [];
  try {
    const { running, notStarted } = await startServers(plans, log);
    servers = running;
    for (const { plan, reason } of notStarted) notMeasured.push(`${plan.name} did not start: ${reason}`);
  } catch (error) {
    throw new Error(`a server did not start: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  started.push(...servers);
  const clientOf = new Map(servers.map((s) => [s, clients[plans.indexOf(s.plan)]!]));
  let measured: Measured;
  let model: string;
  try {
    // Each client prepares the frames itself (the same photos, resized and encoded alike), once.
    const inputs = new Map<BenchClient, FrameInput[]>();
    for (const client of new Set(clients)) {
      const config = client.parseArgs([...COMMON_ARGV]);
      inputs.set(client, await client.loadInputs({ source: config.input, resize: config.resize, quality: config.quality }));
    }
    for (const server of [...servers]) {
      const client = clientOf.get(server)!;
      const problem = await probeProblem(client, server, inputs.get(client)!);
      if (problem === undefined) continue;
      // A gateway that does not detect makes the comparison meaningless; a peer is left out, as the matrix leaves it.
      if (server.plan.kind !== 'peer') throw new Error(`${server.plan.name} ${problem}`);
      log(`${server.plan.name} ${problem}: measured without it`);
      notMeasured.push(`${server.plan.name} ${problem}`);
      await server.stop();
      servers.splice(servers.indexOf(server), 1);
    }
    model = servers.find((s) => s.engineModel)?.engineModel ?? (await clients[0]!.fetchModels(servers[0]!.url)).defaultModel;
    log(`measuring ${servers.length} servers, ${options.repeats} halves per cell each, interleaved...`);
    measured = await runHalves(
      servers,
      servers.map((s) => clientOf.get(s)!),
      inputs,
      { repeats: options.repeats, scale: options.scale, log },
    );
  } finally {
    await stopServers(servers);
  }

  const block = compareSection({
    options,
    context: await runContext(options, loadBefore, startedAt),
    servers: results(servers, measured),
    clients: servers.map((s) => clientOf.get(s)!),
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
  process.stdout.write(`${block}\n`);
  if (options.write) {
    log(`wrote the ${options.preset} section of ${writeSection(options.preset, block, options.out)}`);
  }
  for (const f of measured.failures) log(`client failure: ${f}`);
  for (const n of notMeasured) log(`not measured: ${n}`);
  return measured.unanswered || measured.failures.length || notMeasured.length ? 1 : 0;
}

const isEntry = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1]);
if (isEntry) {
  main(process.argv.slice(2).filter((a, i) => !(i === 0 && a === '--'))).then(
    (code) => process.exit(code),
    (error: unknown) => {
      if (error instanceof CompareHelpShown) process.exit(0);
      if (error instanceof CompareArgsError) {
        process.stderr.write(`pnpm bench:compare: ${error.message} (see --help)\n`);
        process.exit(2);
      }
      process.stderr.write(`compare failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
}
