/**
 * `pnpm bench:stability`: the long open-loop run behind the target "6 clients x 30 fps offered: p95 of the
 * last minute within 1.2x of the first over a 5-minute run". Starts a server (the gateway, or a Python peer)
 * or uses one at --url, drives it with the benchmark client's open loop (`--rate`), and prints, per window
 * of scheduled send time, what the frames got and their latency from the schedule; then last / first p95.
 *
 * Bounded: at most an hour of load, loopback unless --url says otherwise; the server it started is stopped.
 */
import { availableParallelism } from 'node:os';
import { Command, InvalidArgumentError, Option } from 'commander';
import { startGatewayProcess, type GatewayProcess, type ServerProcess } from '@sightline/harness/process';
import { PEERS, setupPythonPeers, startPythonPeer, type PythonPeer } from '../baselines/fastapi-process.ts';
import { parseArgs } from '../client/args.ts';
import { loadInputs } from '../client/inputs.ts';
import { spreadStaggerMs } from '../client/pacing.ts';
import { summarizeBench } from '../client/report.ts';
import { runBenchmark } from '../client/run.ts';
import { p95Drift, windowFigures, type WindowFigures } from '../reliability/load-stats.ts';
import { contextLines, finishRun, fmt, startRun, textTable } from '../report.ts';
import { commandArgv, runIfEntry, stopOnSignal } from '../cli.ts';

const SERVERS = ['sightline', ...(Object.keys(PEERS) as PythonPeer[])] as const;
type ServerName = (typeof SERVERS)[number];

interface StabilityOptions {
  minutes: number;
  window: number;
  clients: number;
  fps: number;
  resize: string;
  codec: 'msgpack' | 'json';
  server: ServerName;
  url?: string;
  token?: string;
  ca?: string;
  insecure?: boolean;
  threads: number;
  target: number;
  json?: boolean;
}

function positive(max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0 || n > max) throw new InvalidArgumentError(`a number above 0, at most ${max}.`);
    return n;
  };
}

export function parseStabilityArgs(argv: readonly string[]): StabilityOptions {
  const program = new Command('pnpm bench:stability')
    .description('Open-loop load for minutes; p95 per window of scheduled send time, and the last window over the first.')
    .option('--minutes <m>', 'minutes of load (at most 60)', positive(60), 5)
    .option('--window <s>', 'seconds per window (the target compares minutes)', positive(3600), 60)
    .option('--clients <n>', 'cameras, each its own WebSocket', positive(100), 6)
    .option('--fps <f>', 'frames per second per camera', positive(240), 30)
    .option('--resize <WxH>', 'frame size (the fixture photos, re-encoded at quality 80)', '640x480')
    .addOption(new Option('--codec <codec>', 'wire codec').choices(['msgpack', 'json']).default('msgpack'))
    .addOption(
      new Option('--server <name>', 'the server to start: the gateway, or a Python peer (bench/baselines/fastapi)')
        .choices(SERVERS)
        .default('sightline'),
    )
    .addOption(new Option('--url <url>', 'measure a server already running here instead of starting one').conflicts('server'))
    .option('--token <token>', 'with --url: access token (default: $SIGHTLINE_TOKEN)')
    .option('--ca <file>', 'with an https:// --url: trust this certificate')
    .option('--insecure', 'with an https:// --url: do not verify the certificate')
    .option('--threads <n>', 'intra-op threads (and gateway workers) of the server started', positive(256), availableParallelism())
    .option('--target <ratio>', 'the largest last / first p95 that passes', positive(100), 1.2)
    .option('--json', 'print the figures as one JSON object')
    .allowExcessArguments(false);
  program.parse([...argv], { from: 'user' });
  return program.opts<StabilityOptions>();
}

async function startServer(options: StabilityOptions): Promise<{ url: string; stop: () => Promise<void>; name: string }> {
  if (options.url) return { url: options.url, stop: async () => {}, name: options.url };
  let server: GatewayProcess | ServerProcess;
  if (options.server === 'sightline') {
    const threads = String(options.threads);
    server = await startGatewayProcess({ env: { SIGHTLINE_THREADS: threads, SIGHTLINE_WORKERS: threads } });
  } else {
    await setupPythonPeers();
    server = await startPythonPeer(options.server, options.threads);
  }
  return { url: server.url, stop: () => server.stop(), name: options.server === 'sightline' ? 'Sightline' : PEERS[options.server].name };
}

function report(name: string, options: StabilityOptions, windows: readonly WindowFigures[], drift: number): string {
  const rows = [['window (s)', 'sent', 'detected', 'dropped/error', 'unanswered', 'p50 ms', 'p95 ms', 'p99 ms']];
  for (const w of windows) {
    rows.push([
      `${fmt(w.fromS, 0)}-${fmt(w.toS, 0)}`,
      String(w.sent),
      String(w.detected),
      String(w.refused),
      String(w.unanswered),
      fmt(w.p50),
      fmt(w.p95),
      fmt(w.p99),
    ]);
  }
  const verdict = Number.isFinite(drift) ? (drift <= options.target ? 'met' : 'NOT met') : 'not measurable';
  return [
    `${name}: open loop, ${options.clients} clients x ${options.fps} fps offered, ${options.resize} ${options.codec}, ${options.minutes} min; ` +
      'latency of detected frames from the scheduled send time',
    '',
    textTable(rows),
    '',
    `p95 last / first window: ${fmt(drift, 2)}x (target at most ${options.target}x: ${verdict})`,
  ].join('\n');
}

async function main(): Promise<number> {
  const options = parseStabilityArgs(commandArgv());
  const start = startRun();
  process.stderr.write(options.url ? `measuring ${options.url}\n` : `starting ${options.server}...\n`);
  const server = await startServer(options);
  const unlisten = stopOnSignal(() => [server]);
  try {
    const config = parseArgs([
      '--url',
      server.url,
      '--rate',
      String(options.fps),
      '--clients',
      String(options.clients),
      // Independent cameras do not send in step: their schedules spread over one frame interval.
      '--stagger',
      spreadStaggerMs(options.fps, options.clients).toFixed(2),
      '--duration',
      String(options.minutes * 60),
      '--resize',
      options.resize,
      '--codec',
      options.codec,
      '--warmup',
      '3',
      '--quiet',
      ...(options.token ? ['--token', options.token] : []),
      ...(options.ca ? ['--ca', options.ca] : []),
      ...(options.insecure ? ['--insecure'] : []),
    ]);
    const inputs = await loadInputs({ source: config.input, resize: config.resize, quality: config.quality });
    let answered = 0;
    const progress = setInterval(
      () => process.stderr.write(`  ${answered.toLocaleString('en-US')} frames answered\n`),
      options.window * 1000,
    );
    let result;
    try {
      result = await runBenchmark(config, inputs, { onFrame: () => answered++ });
    } finally {
      clearInterval(progress);
    }
    const summary = summarizeBench(result);
    const samples = result.repeats.flatMap((r) => r.samples);
    const windows = windowFigures(samples, options.window * 1000, options.minutes * 60_000);
    const drift = p95Drift(windows);
    if (options.json) {
      process.stdout.write(
        JSON.stringify({
          server: server.name,
          options: { ...options, token: undefined },
          windows,
          p95Drift: drift,
          overall: summary.overall,
        }) + '\n',
      );
    } else {
      process.stdout.write(`${contextLines(finishRun(start))}\n\n${report(server.name, options, windows, drift)}\n`);
    }
    const failures = result.repeats.flatMap((r) => r.clientFailures);
    for (const f of failures) process.stderr.write(`warning: ${f}\n`);
    return summary.ok ? 0 : 1;
  } finally {
    unlisten();
    await server.stop();
  }
}

runIfEntry(import.meta.url, 'stability', main);
