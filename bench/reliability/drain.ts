/**
 * `pnpm bench:drain`: what a SIGTERM costs the clients. Four open-loop clients stream 640x480 frames
 * (default 40 fps each: more than the gateway can detect, so its queues are full), two large HTTP
 * requests go out just before the signal, then the gateway gets SIGTERM. For each of R fresh gateways:
 * what the frames sent before the signal got (detections, dropped shutting_down, other, nothing), what
 * the frames sent after it got, what each HTTP request got (a status, or the connection reset), the close
 * codes the clients saw, how the process ended and how long after the signal.
 *
 * --stalled-reader adds one client that stops reading its socket before the signal: a drain that waits for
 * every close handshake waits for it.
 */
import { Command } from 'commander';
import { DETECT_PATH } from '@sightline/shared/protocol';
import { pacedLoop } from '../client/transports/ws-paced.ts';
import { WsConnection } from '../client/transports/ws-connection.ts';
import type { FrameInput, FrameReport, Recorder, Workload } from '../client/types.ts';
import { httpProbe } from '../fuzz/http-probe.ts';
import { OwnedGateway } from './gateway-under-test.ts';
import { countBy, formatCounts } from './load-stats.ts';
import { cameraFrame, largeImage } from './scenario-frames.ts';
import { num } from './scenario-options.ts';
import { callerPath } from '../cli.ts';
import { figuresSection, fmt, publishSection } from '../report.ts';

const program = new Command('bench:drain')
  .description('SIGTERM under load, R times: what every frame, request and connection got, and how long the gateway took to exit.')
  .option('--gateway-dir <dir>', "start the gateway from this package folder; default: this repository's gateway/")
  .option('--repeats <n>', 'fresh gateways, one signal each', '5')
  .option('--clients <n>', 'streaming clients', '4')
  .option('--fps <n>', 'frames per second per client (open loop)', '40')
  .option('--warm <s>', 'seconds of streaming before the signal', '3')
  .option('--http <n>', 'large HTTP requests sent just before the signal', '2')
  .option('--http-lead <ms>', 'ms between sending the HTTP requests and the signal', '20')
  .option('--stalled-reader', 'one more client that stops reading before the signal')
  .option('--exit-timeout <s>', 'SIGKILL if the gateway has not exited this long after SIGTERM', '60')
  .option('--json', 'print the figures as one JSON object')
  .option('--write', 'also replace the drain section of docs/runs/drain.md');
program.parse();
const o = program.opts<{
  gatewayDir?: string;
  repeats: string;
  clients: string;
  fps: string;
  warm: string;
  http: string;
  httpLead: string;
  stalledReader?: boolean;
  exitTimeout: string;
  json?: boolean;
  write?: boolean;
}>();
const repeats = num(o.repeats, 'repeats', 1);
const clients = num(o.clients, 'clients', 1);
const fps = num(o.fps, 'fps', 0.1);
const warmMs = num(o.warm, 'warm') * 1000;
const httpCount = num(o.http, 'http');
const httpLeadMs = num(o.httpLead, 'http-lead');
const exitTimeoutMs = num(o.exitTimeout, 'exit-timeout', 1) * 1000;

interface FrameRecord {
  client: number;
  due: number;
  result: FrameReport;
}

interface DrainRun {
  sentBefore: number;
  before: Record<string, number>;
  sentAfter: number;
  after: Record<string, number>;
  neverAnswered: number;
  http: string[];
  closes: string[];
  stalledClose?: string;
  exit: string;
  msToExit: number;
  killed: boolean;
  logLines: number;
  /** The gateway's last output lines when it did not exit with code 0. */
  lastLines?: string;
}

/** An outcome as the table shows it. */
function kind(result: FrameReport): string {
  if (result.outcome === 'ok') return 'detections';
  if (result.outcome === 'dropped') return `dropped ${result.errorCode}`;
  if (result.outcome === 'error') return `error ${result.errorCode}`;
  return 'never answered';
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function oneRun(frame: FrameInput, big: Awaited<ReturnType<typeof largeImage>>): Promise<DrainRun> {
  const gateway = await OwnedGateway.start(o.gatewayDir ? { dir: callerPath(o.gatewayDir) } : {});
  const records: FrameRecord[] = [];
  const stopAt = { at: Number.POSITIVE_INFINITY };
  const connections = await Promise.all(
    Array.from({ length: clients }, () => WsConnection.open({ baseUrl: gateway.url, codec: 'msgpack', timeoutMs: 30_000 })),
  );
  const stalled = o.stalledReader ? await WsConnection.open({ baseUrl: gateway.url, codec: 'msgpack', timeoutMs: 30_000 }) : undefined;
  const streams = connections.map((connection, client) => {
    let seq = 0;
    const work: Workload = { next: (at = performance.now()) => (at < stopAt.at ? { seq: seq++, input: frame } : undefined) };
    const recorder: Recorder = { frame: (_item, due, result) => records.push({ client, due, result }), net: () => {} };
    return pacedLoop(connection, work, recorder, fps);
  });
  await sleep(warmMs);
  if (stalled) {
    // A few frames answered, then it stops reading; what the gateway sends it from now on stays in the buffers.
    for (let i = 0; i < 3; i++) await stalled.request(frame);
    stalled.pauseReading();
    for (let i = 0; i < 20; i++) void stalled.request(frame);
  }
  const requests = Array.from({ length: httpCount }, () =>
    httpProbe(
      gateway.url,
      {
        channel: 'http',
        method: 'POST',
        path: DETECT_PATH,
        headers: { 'content-type': big.contentType, accept: 'application/json' },
        body: big.bytes,
      },
      60_000,
    ),
  );
  await sleep(httpLeadMs);
  const logsBefore = gateway.tally.lines;
  const signalAt = performance.now();
  gateway.signal('SIGTERM');
  // Streaming goes on through the drain: frames sent after the signal show what a draining gateway says to them.
  stopAt.at = signalAt + exitTimeoutMs;
  const killTimer = setTimeout(() => gateway.signal('SIGKILL'), exitTimeoutMs);
  const exit = await gateway.exited;
  clearTimeout(killTimer);
  stopAt.at = Math.min(stopAt.at, performance.now());
  const msToExit = exit.at - signalAt;
  await Promise.all(streams);
  const httpResults = await Promise.all(requests);
  await Promise.all(connections.map((c) => c.close(100)));
  await stalled?.close(100);

  const before = records.filter((r) => r.due < signalAt);
  const after = records.filter((r) => r.due >= signalAt);
  return {
    sentBefore: before.length,
    before: countBy(before, (r) => kind(r.result)),
    sentAfter: after.length,
    after: countBy(after, (r) => kind(r.result)),
    neverAnswered: records.filter((r) => r.result.outcome === 'timeout' || r.result.outcome === 'failed').length,
    http: httpResults.map((h) =>
      h.outcome.startsWith('http') ? h.outcome.replace(/^http /, '') : `${h.outcome} ${h.message ?? ''}`.trim(),
    ),
    closes: connections.map((c) => (c.closeCode === undefined ? 'none' : `${c.closeCode}${c.closeText ? ` "${c.closeText}"` : ''}`)),
    ...(stalled ? { stalledClose: stalled.closeCode === undefined ? 'none' : String(stalled.closeCode) } : {}),
    exit: exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`,
    msToExit,
    killed: exit.signal === 'SIGKILL',
    logLines: gateway.tally.lines - logsBefore,
    ...(exit.code === 0 ? {} : { lastLines: gateway.lastLines().split('\n').slice(-6).join('\n') }),
  };
}

function runText(r: DrainRun, i: number): string {
  return [
    `run ${i + 1}: exit ${r.exit} ${fmt(r.msToExit, 0)} ms after SIGTERM${r.killed ? ' (killed: no exit in time)' : ''}`,
    `  frames sent before the signal ${r.sentBefore}: ${formatCounts(r.before)}`,
    `  frames sent after the signal ${r.sentAfter}: ${formatCounts(r.after)}`,
    `  never answered: ${r.neverAnswered}; HTTP: ${r.http.join(', ') || '-'}; closes seen: ${formatCounts(countBy(r.closes, (c) => c))}${r.stalledClose ? `; stalled reader: ${r.stalledClose}` : ''}`,
    ...(r.lastLines ? [`  last gateway output:\n${r.lastLines.replace(/^/gm, '    | ')}`] : []),
  ].join('\n');
}

function summaryRows(runs: readonly DrainRun[]): string[][] {
  const sum = (f: (r: DrainRun) => number) => runs.reduce((n, r) => n + f(r), 0);
  const merged = (f: (r: DrainRun) => Record<string, number>) => {
    const out: Record<string, number> = {};
    for (const r of runs) for (const [k, v] of Object.entries(f(r))) out[k] = (out[k] ?? 0) + v;
    return out;
  };
  const ms = runs.map((r) => r.msToExit).sort((a, b) => a - b);
  return [
    ['runs', String(runs.length)],
    ['frames sent before the signal', String(sum((r) => r.sentBefore))],
    ['  of which', formatCounts(merged((r) => r.before))],
    ['frames sent after the signal', String(sum((r) => r.sentAfter))],
    ['  of which', formatCounts(merged((r) => r.after))],
    [
      'HTTP requests in flight',
      formatCounts(
        countBy(
          runs.flatMap((r) => r.http),
          (h) => h,
        ),
      ),
    ],
    [
      'close codes the clients saw',
      formatCounts(
        countBy(
          runs.flatMap((r) => r.closes),
          (c) => c,
        ),
      ),
    ],
    ...(runs[0]?.stalledClose !== undefined ? [['stalled reader saw', formatCounts(countBy(runs, (r) => r.stalledClose ?? '-'))]] : []),
    ['process exit', formatCounts(countBy(runs, (r) => r.exit))],
    [
      'ms from SIGTERM to exit, min / median / max',
      `${fmt(ms[0]!, 0)} / ${fmt(ms[Math.floor(ms.length / 2)]!, 0)} / ${fmt(ms[ms.length - 1]!, 0)}`,
    ],
  ];
}

const frame = await cameraFrame();
const big = await largeImage(10 * 1024 * 1024);
const runs: DrainRun[] = [];
for (let i = 0; i < repeats; i++) {
  process.stderr.write(`run ${i + 1}/${repeats}...\n`);
  const run = await oneRun(frame, big);
  runs.push(run);
  if (!o.json) console.log(runText(run, i));
}
const label = o.gatewayDir ?? 'gateway/ of this repository';
if (o.json) console.log(JSON.stringify({ gateway: label, clients, fps, stalledReader: o.stalledReader === true, runs }));
else
  console.log(
    `\nsummary (${clients} clients x ${fps} fps, ${httpCount} HTTP requests of a ${big.width}x${big.height} PNG${o.stalledReader ? ', one stalled reader' : ''}):\n${summaryRows(
      runs,
    )
      .map(([k, v]) => `  ${k}: ${v}`)
      .join('\n')}`,
  );
if (o.write) {
  const name = o.stalledReader ? 'drain-stalled' : 'drain';
  const command = `pnpm bench:drain --repeats ${repeats} --clients ${clients} --fps ${fps}${o.stalledReader ? ' --stalled-reader' : ''} --write`;
  const title = o.stalledReader ? 'Drain with a client that stopped reading' : 'Drain: SIGTERM under load';
  publishSection(name, figuresSection(title, command, label, summaryRows(runs)));
}
process.exit(0);
