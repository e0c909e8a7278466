/**
 * `pnpm bench:soak`: overload, then hostile input, against one gateway. N open-loop clients (half
 * MessagePack, half JSON) each send a 640x480 camera frame at a fixed rate far beyond what the machine can
 * detect, for a while; then a seeded fuzz run. Reports what every frame got, the latency of detected frames
 * from their scheduled send time (overall and per 10-s window: flat, or growing?), how evenly clients were
 * served, the gateway's memory over time, and what it logged; the fuzz verdicts follow.
 *
 * The yardstick is measured first, on the idle gateway: the server time of one frame alone (p50 of ~50
 * stop-and-wait frames), so "p95 under overload / single-frame server time" says how much of the
 * overload reaches each admitted frame as waiting.
 */
import { Command } from 'commander';
import { summarize, type Summary } from '@sightline/shared/stats';
import { parseArgs } from '../client/args.ts';
import { spreadStaggerMs } from '../client/pacing.ts';
import { fmt } from '../client/report.ts';
import { runBenchmark, type BenchResult } from '../client/run.ts';
import { UNANSWERED, type FrameMeasurement } from '../client/types.ts';
import { formatFuzzReport, groupFailures } from '../fuzz/fuzz-report.ts';
import { runFuzz, type FuzzReport } from '../fuzz/run-fuzz.ts';
import { measureIdleServerTime, type IdleTiming } from './idle-server-time.ts';
import { countBy, formatCounts, shareRatio, windowFigures } from './load-stats.ts';
import { mb } from './process-stats.ts';
import { markdownTable, provenance, writeReliabilitySection } from './reliability-doc.ts';
import { startRssSampler, type RssSample } from './rss-sampler.ts';
import { cameraFrame } from './scenario-frames.ts';
import { num, targetFrom, withTargetOptions, type TargetOptions } from './scenario-options.ts';

const WINDOW_MS = 10_000;

const program = withTargetOptions(
  new Command('bench:soak')
    .description('Overload (open-loop clients, both codecs) then a seeded fuzz run against one gateway; prints what every frame got.')
    .option('--clients <n>', 'open-loop clients; the first half MessagePack, the rest JSON', '50')
    .option('--duration <s>', 'seconds of load', '60')
    .option('--fps <n>', 'frames per second per client', '10')
    .option('--timeout <ms>', 'a frame without an answer after MS counts as unanswered', '15000')
    .option('--fuzz-cases <n>', 'fuzz cases after the load', '10000')
    .option('--seed <n>', 'fuzz seed', '1')
    .option('--skip-fuzz', 'load only')
    .option(
      '--together',
      "line all clients' schedules up (every client sends at the same instants) instead of spreading them over one frame interval",
    ),
);
program.parse();
const o = program.opts<
  TargetOptions & {
    clients: string;
    duration: string;
    fps: string;
    timeout: string;
    fuzzCases: string;
    seed: string;
    skipFuzz?: boolean;
    together?: boolean;
  }
>();
const clients = num(o.clients, 'clients', 1);
const durationS = num(o.duration, 'duration', 1);
const fps = num(o.fps, 'fps', 0.1);
const fuzzCases = o.skipFuzz ? 0 : num(o.fuzzCases, 'fuzz-cases');

interface LoadFigures {
  clients: number;
  fps: number;
  durationS: number;
  offeredFps: number;
  sent: number;
  answered: number;
  unanswered: number;
  outcomes: Record<string, number>;
  detectedFps: number;
  latency: Summary;
  p95ByWindow: number[];
  perClientDetected: { min: number; max: number; ratio: number; counts: number[] };
  /** Detected frames per codec (clients of the first half are MessagePack, the rest JSON). */
  detectedByCodec: Record<string, number>;
  sendLag: Summary;
  pingRtt: Summary;
  clientFailures: string[];
}

function outcomeKey(s: FrameMeasurement): string {
  if (s.outcome === 'ok') return 'detections';
  if (s.outcome === 'dropped') return `dropped ${s.errorCode}`;
  if (s.outcome === 'error') return `error ${s.errorCode}`;
  return `unanswered (${s.outcome})`;
}

function loadFigures(results: Array<{ result: BenchResult; clientOffset: number }>): LoadFigures {
  const samples: FrameMeasurement[] = [];
  const pings: number[] = [];
  const clientFailures: string[] = [];
  for (const { result, clientOffset } of results) {
    for (const r of result.repeats) {
      for (const s of r.samples) if (!s.warmup) samples.push({ ...s, client: s.client + clientOffset });
      for (const n of r.net) if (n.kind === 'ping' && n.phase === 'measure') pings.push(n.ms);
      clientFailures.push(...r.clientFailures.map((f) => `${result.config.codec}: ${f}`));
    }
  }
  const ok = samples.filter((s) => s.outcome === 'ok');
  const perClient = Array.from({ length: clients }, (_, c) => ok.filter((s) => s.client === c).length);
  const unanswered = samples.filter((s) => UNANSWERED.has(s.outcome)).length;
  return {
    clients,
    fps,
    durationS,
    offeredFps: clients * fps,
    sent: samples.length,
    answered: samples.length - unanswered,
    unanswered,
    outcomes: countBy(samples, outcomeKey),
    detectedFps: ok.length / durationS,
    latency: summarize(ok.map((s) => s.latencyMs)),
    p95ByWindow: windowFigures(samples, WINDOW_MS, durationS * 1000).map((w) => w.p95),
    perClientDetected: { min: Math.min(...perClient), max: Math.max(...perClient), ratio: shareRatio(perClient), counts: perClient },
    detectedByCodec: countBy(ok, (s) => (s.client < Math.ceil(clients / 2) ? 'msgpack' : 'json')),
    sendLag: summarize(samples.map((s) => s.sendLagMs ?? 0)),
    pingRtt: summarize(pings),
    clientFailures,
  };
}

function rssLine(samples: readonly RssSample[]): string {
  return samples.map((s) => `${s.atS.toFixed(0)}s ${mb(s.kb)}${s.phase === 'load' ? '' : ` (${s.phase})`}`).join(', ');
}

function loadText(load: LoadFigures, idle: IdleTiming): string {
  const ratio = load.latency.p95 / idle.serverMs.p50;
  return [
    `single frame on the idle gateway: server time p50 ${fmt(idle.serverMs.p50)} ms (p95 ${fmt(idle.serverMs.p95)}), round trip p50 ${fmt(idle.latencyMs.p50)} ms (${idle.frames} frames, stop-and-wait)`,
    `load: ${load.clients} clients x ${load.fps} fps for ${load.durationS} s, open loop (${o.together ? 'all in step' : 'schedules spread over a frame interval'}), 640x480 JPEG, half MessagePack / half JSON: offered ${fmt(load.offeredFps, 0)} frames/s`,
    `frames sent ${load.sent.toLocaleString('en-US')}, answered ${load.answered.toLocaleString('en-US')}, unanswered ${load.unanswered.toLocaleString('en-US')}`,
    `outcomes: ${formatCounts(load.outcomes)}`,
    `detected ${fmt(load.detectedFps, 1)} frames/s; latency of detected frames from their scheduled send: p50 ${fmt(load.latency.p50, 0)} ms, p95 ${fmt(load.latency.p95, 0)} ms, p99 ${fmt(load.latency.p99, 0)} ms, max ${fmt(load.latency.max, 0)} ms`,
    `p95 / single-frame server time: ${fmt(ratio, 1)}x`,
    `p95 per ${WINDOW_MS / 1000}-s window (ms): ${load.p95ByWindow.map((v) => fmt(v, 0)).join(', ')}`,
    `detected per client: min ${load.perClientDetected.min}, max ${load.perClientDetected.max}, largest/smallest ${fmt(load.perClientDetected.ratio, 2)}; by codec: ${formatCounts(load.detectedByCodec)}`,
    `client send lag (behind schedule): p99 ${fmt(load.sendLag.p99, 1)} ms, max ${fmt(load.sendLag.max, 1)} ms; WS ping RTT during load p50 ${fmt(load.pingRtt.p50, 1)} ms, p99 ${fmt(load.pingRtt.p99, 0)} ms`,
    load.clientFailures.length
      ? `client failures: ${load.clientFailures.slice(0, 5).join('; ')}${load.clientFailures.length > 5 ? ` (+${load.clientFailures.length - 5})` : ''}`
      : 'no client lost its connection',
  ].join('\n');
}

function docBlock(
  label: string,
  load: LoadFigures,
  idle: IdleTiming,
  rss: readonly RssSample[],
  logs: { lines: number; stackLines: number } | undefined,
  fuzz: FuzzReport | undefined,
): string {
  const command = `pnpm bench:soak --clients ${clients} --duration ${durationS} --fps ${fps}${o.together ? ' --together' : ''}${fuzz ? ` --fuzz-cases ${fuzz.cases} --seed ${fuzz.seed}` : ' --skip-fuzz'} --write`;
  const rows: string[][] = [
    ['offered', `${load.clients} clients x ${load.fps} fps = ${fmt(load.offeredFps, 0)} frames/s for ${load.durationS} s`],
    ['frames sent / answered / unanswered', `${load.sent} / ${load.answered} / ${load.unanswered}`],
    ['outcomes', formatCounts(load.outcomes)],
    ['detected frames/s', fmt(load.detectedFps, 1)],
    [
      'latency of detected frames, p50 / p95 / p99 (ms, from scheduled send)',
      `${fmt(load.latency.p50, 0)} / ${fmt(load.latency.p95, 0)} / ${fmt(load.latency.p99, 0)}`,
    ],
    ['single-frame server time, idle (p50, ms)', fmt(idle.serverMs.p50, 1)],
    ['p95 / single-frame server time', `${fmt(load.latency.p95 / idle.serverMs.p50, 1)}x`],
    [`p95 per ${WINDOW_MS / 1000}-s window (ms)`, load.p95ByWindow.map((v) => fmt(v, 0)).join(', ')],
    [
      'detected per client, min / max (ratio)',
      `${load.perClientDetected.min} / ${load.perClientDetected.max} (${fmt(load.perClientDetected.ratio, 2)})`,
    ],
    ['client send lag p99 (ms)', fmt(load.sendLag.p99, 1)],
    ['gateway RSS every 5 s', rssLine(rss) || '- (no pid)'],
  ];
  if (logs) rows.push(['gateway log lines (with stack traces)', `${logs.lines} (${logs.stackLines})`]);
  if (fuzz) {
    rows.push(
      ['fuzz cases passed / failed', `${fuzz.passed} / ${fuzz.failed} (seed ${fuzz.seed})`],
      [
        'fuzz unanswered / internal errors / connection failures',
        `${fuzz.unanswered} / ${fuzz.internalErrors} / ${fuzz.connectionFailures}`,
      ],
      ['largest reply (bytes) / longest error message (chars)', `${fuzz.maxReplyBytes} / ${fuzz.maxErrorMessageChars}`],
      ['gateway alive after fuzz', fuzz.aliveAtEnd && !fuzz.crashed ? 'yes' : 'no'],
    );
    if (fuzz.rssKb)
      rows.push([
        `RSS before / after fuzz / after ${fuzz.rssKb.idleMs / 1000} s idle`,
        `${mb(fuzz.rssKb.before)} / ${mb(fuzz.rssKb.after)} / ${mb(fuzz.rssKb.afterIdle)}`,
      ]);
    for (const g of groupFailures(fuzz.failures).slice(0, 10))
      rows.push([`fuzz failure: ${g.category}`, `${g.count} x got ${g.got}: ${g.problem} (e.g. #${g.example.index} "${g.example.name}")`]);
  }
  return ['## Soak: overload, then hostile input', '', provenance(command, label), '', markdownTable(['figure', 'value'], rows)].join('\n');
}

const target = await targetFrom(o);
const rss = startRssSampler(target.pid, 5000, 'idle');
let exitCode = 0;
try {
  const frame = await cameraFrame();
  process.stderr.write(`gateway ${target.label} at ${target.url}; measuring one frame on the idle gateway...\n`);
  const idle = await measureIdleServerTime(target.url, frame);
  const logsBefore = target.owned ? { ...target.owned.tally } : undefined;

  rss.phase('load');
  process.stderr.write(`load: ${clients} clients x ${fps} fps for ${durationS} s...\n`);
  const halves = [
    { codec: 'msgpack', count: Math.ceil(clients / 2), offset: 0 },
    { codec: 'json', count: Math.floor(clients / 2), offset: Math.ceil(clients / 2) },
  ].filter((h) => h.count > 0);
  const ticker = setInterval(() => process.stderr.write('.'), 5000);
  const results = await Promise.all(
    halves.map(async (h) => {
      const argv = [
        '--url',
        target.url,
        '--rate',
        String(fps),
        '--clients',
        String(h.count),
        '--duration',
        String(durationS),
        '--codec',
        h.codec,
        '--warmup',
        '0',
        '--timeout',
        o.timeout,
        '--label',
        h.codec,
        // Cameras are not in step: each half spreads its clients' schedules over one frame interval.
        ...(h.count > 1 ? ['--stagger', o.together ? '0' : String(spreadStaggerMs(fps, h.count))] : []),
      ];
      return { result: await runBenchmark(parseArgs(argv, undefined, { checkFiles: false }), [frame]), clientOffset: h.offset };
    }),
  );
  clearInterval(ticker);
  process.stderr.write('\n');
  const load = loadFigures(results);
  rss.phase('after load');

  let fuzz: FuzzReport | undefined;
  if (fuzzCases > 0) {
    rss.phase('fuzz');
    process.stderr.write(`fuzz: ${fuzzCases} cases...\n`);
    fuzz = await runFuzz({
      url: target.url,
      seed: num(o.seed, 'seed'),
      cases: fuzzCases,
      ...(target.pid === undefined ? {} : { pid: target.pid }),
      idleMs: 10_000,
      onCase: (_r, done) => {
        if (done % 500 === 0) process.stderr.write(`\r${done}/${fuzzCases}`);
      },
    });
    process.stderr.write('\n');
  }
  rss.phase('end');
  const logs =
    target.owned && logsBefore
      ? { lines: target.owned.tally.lines - logsBefore.lines, stackLines: target.owned.tally.stackLines - logsBefore.stackLines }
      : undefined;

  if (o.json) {
    console.log(JSON.stringify({ gateway: target.label, idle, load, rss: rss.samples, logs, fuzz }));
  } else {
    console.log(`gateway: ${target.label}\n`);
    console.log(loadText(load, idle));
    console.log(`gateway RSS (every 5 s): ${rssLine(rss.samples) || '- (no pid)'}`);
    if (logs) console.log(`gateway log during load and fuzz: ${logs.lines} lines, ${logs.stackLines} with stack traces`);
    if (fuzz) console.log(`\n${formatFuzzReport(fuzz)}`);
  }
  if (o.write) writeReliabilitySection('soak', docBlock(target.label, load, idle, rss.samples, logs, fuzz));
  if (load.unanswered > 0 || (fuzz && (fuzz.failed > 0 || !fuzz.aliveAtEnd))) exitCode = 1;
} finally {
  rss.stop();
  await target.owned?.stop();
}
process.exit(exitCode);
