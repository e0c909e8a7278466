/**
 * `pnpm bench:soak`: overload, then hostile input, against one gateway. N open-loop clients (half
 * MessagePack, half JSON) each send a 640x480 camera frame at a fixed rate far beyond what the machine can
 * detect, for a while; then a seeded fuzz run. Reports what every frame got, the latency of detected frames
 * from their scheduled send time (overall and per 10-s window: flat, or growing?), how evenly clients were
 * served, the gateway's memory over time, and what it logged; the fuzz verdicts follow.
 *
 * Two yardsticks are measured first, on the idle gateway, in the same run: the server time of one frame alone
 * (p50 of ~50 stop-and-wait frames), and the service time of a frame processed beside another (p50 of the
 * frames of two naive stop-and-wait clients side by side: what 2 cores do at full use). "p95 under overload /
 * service time beside another" is issue 29's goal (at most 2.5x): how much waiting beyond full use a detected
 * frame carried. With `--ignore-retry-after` the cameras send every frame on schedule whatever the gateway
 * says, as cameras that ignore the hint do; per camera it prints the uplink (frames sent, per second, refused)
 * and what was detected, and the largest over the smallest detected count over the run and per `--fair-window`.
 */
import { Command } from 'commander';
import { summarize, type Summary } from '@sightline/shared/stats';
import { parseArgs } from '../client/args.ts';
import { spreadStaggerMs } from '../client/pacing.ts';
import { runBenchmark, type BenchResult } from '../client/run.ts';
import { UNANSWERED, type FrameMeasurement } from '../client/types.ts';
import { formatFuzzReport, groupFailures } from '../fuzz/fuzz-report.ts';
import { runFuzz, type FuzzReport } from '../fuzz/run-fuzz.ts';
import { cameraFigures, type CameraReport } from './camera-figures.ts';
import { measureServerTime, type ServerTiming } from './server-time.ts';
import { countBy, formatCounts, shareRatio, windowFigures } from './load-stats.ts';
import { mb } from './process-stats.ts';
import { startRssSampler, type RssSample } from './rss-sampler.ts';
import { cameraFrame } from './scenario-frames.ts';
import { num, targetFrom, withTargetOptions, type TargetOptions } from './scenario-options.ts';
import { figuresSection, fmt, publishSection } from '../report.ts';

const WINDOW_MS = 10_000;
/** Issue 29, point 3: detected frames' p95 over the service time beside another, and detected per camera largest / smallest. */
const GOALS = { p95OverBeside: 2.5, fairRatio: 1.25 };

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
      '--ignore-retry-after',
      'cameras send every frame on schedule, as if refusals carried no retryAfterMs (cameras that ignore the hint)',
    )
    .option('--fair-window <s>', 'seconds of each window the per-camera shares are compared in', '60')
    .option('--beside-frames <n>', 'frames per client of the two side-by-side clients measured before the load', '50')
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
    ignoreRetryAfter?: boolean;
    fairWindow: string;
    besideFrames: string;
  }
>();
const clients = num(o.clients, 'clients', 1);
const durationS = num(o.duration, 'duration', 1);
const fps = num(o.fps, 'fps', 0.1);
const fuzzCases = o.skipFuzz ? 0 : num(o.fuzzCases, 'fuzz-cases');
const fairWindowS = num(o.fairWindow, 'fair-window', 1);
const besideFrames = num(o.besideFrames, 'beside-frames', 1);
const hint = o.ignoreRetryAfter ? 'retryAfterMs ignored' : 'retryAfterMs honoured';

interface LoadFigures {
  clients: number;
  fps: number;
  durationS: number;
  offeredFps: number;
  /** Frames that went out (frames held back by a refusal's `retryAfterMs` never did). */
  sent: number;
  /** Frames due but never sent: the gateway's last refusal said when to send again. */
  held: number;
  answered: number;
  unanswered: number;
  outcomes: Record<string, number>;
  detectedFps: number;
  latency: Summary;
  /** Detected frames inside the gateway: receipt to reply, receipt to start, the model run (ms). */
  server: { serverMs: Summary; queueMs: Summary; inferenceMs: Summary };
  /** Latency of detected frames sent after the first window: the connections' first frames all queue at once. */
  latencyAfterFirstWindow: Summary;
  p95ByWindow: number[];
  perClientDetected: { min: number; max: number; ratio: number; counts: number[] };
  /** Detected frames per codec (clients of the first half are MessagePack, the rest JSON). */
  detectedByCodec: Record<string, number>;
  sendLag: Summary;
  pingRtt: Summary;
  clientFailures: string[];
  /** Per camera: uplink, refused, detected; shares over the run and per fair window. */
  cameras: CameraReport;
}

function outcomeKey(s: FrameMeasurement): string {
  if (s.outcome === 'ok') return 'detections';
  if (s.outcome === 'dropped') return `dropped ${s.errorCode}`;
  if (s.outcome === 'error') return `error ${s.errorCode}`;
  if (s.outcome === 'held') return 'held by retryAfterMs (never sent)';
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
  const held = samples.filter((s) => s.outcome === 'held').length;
  return {
    clients,
    fps,
    durationS,
    offeredFps: clients * fps,
    sent: samples.length - held,
    held,
    answered: samples.length - held - unanswered,
    unanswered,
    outcomes: countBy(samples, outcomeKey),
    detectedFps: ok.length / durationS,
    latency: summarize(ok.map((s) => s.latencyMs)),
    latencyAfterFirstWindow: summarize(ok.filter((s) => s.startMs >= WINDOW_MS).map((s) => s.latencyMs)),
    server: {
      serverMs: summarize(ok.map((s) => s.serverMs ?? Number.NaN)),
      queueMs: summarize(ok.map((s) => s.queueMs ?? Number.NaN)),
      inferenceMs: summarize(ok.map((s) => s.inferenceMs ?? Number.NaN)),
    },
    p95ByWindow: windowFigures(samples, WINDOW_MS, durationS * 1000).map((w) => w.p95),
    perClientDetected: { min: Math.min(...perClient), max: Math.max(...perClient), ratio: shareRatio(perClient), counts: perClient },
    detectedByCodec: countBy(ok, (s) => (s.client < Math.ceil(clients / 2) ? 'msgpack' : 'json')),
    sendLag: summarize(samples.map((s) => s.sendLagMs ?? 0)),
    pingRtt: summarize(pings),
    clientFailures,
    cameras: cameraFigures(samples, clients, durationS, fairWindowS),
  };
}

function rssLine(samples: readonly RssSample[]): string {
  return samples.map((s) => `${s.atS.toFixed(0)}s ${mb(s.kb)}${s.phase === 'load' ? '' : ` (${s.phase})`}`).join(', ');
}

const verdict = (met: boolean) => (met ? 'met' : 'NOT met');
/** A largest / smallest ratio; infinite when a camera got none. */
const shareText = (ratio: number) => (ratio === Number.POSITIVE_INFINITY ? 'inf' : fmt(ratio, 2));

/** Per fair window, the largest and smallest detected counts: the detail behind the fairness row. */
function fairnessLine(load: LoadFigures): string {
  const c = load.cameras;
  const windows = c.windows.map(
    (w) => `${fmt(w.fromS, 0)}-${fmt(w.toS, 0)} s ${shareText(w.detected.ratio)} (${w.detected.max} / ${w.detected.min})`,
  );
  return `detected per camera, largest / smallest: over the run ${shareText(c.detected.ratio)} (${c.detected.max} / ${c.detected.min}); per window ${windows.join(', ')}`;
}

/** One line per camera: what it sent and got. */
function cameraTable(load: LoadFigures): string {
  const half = Math.ceil(load.clients / 2);
  const header = 'camera  codec    sent  sent/s  refused  refused/s  detected  held  unanswered';
  const rows = load.cameras.cameras.map(
    (f) =>
      `${String(f.camera).padStart(6)}  ${(f.camera < half ? 'msgpack' : 'json').padEnd(7)} ${String(f.sent).padStart(5)}  ${fmt(f.sentPerS, 2).padStart(6)}  ` +
      `${String(f.refused).padStart(7)}  ${fmt(f.refusedPerS, 2).padStart(9)}  ${String(f.detected).padStart(8)}  ${String(f.held).padStart(4)}  ${String(f.unanswered).padStart(10)}`,
  );
  return [header, ...rows].join('\n');
}

/** What only the terminal gets, beside the section's figures: where the time went, the first window, the clients' view, each camera. */
function details(load: LoadFigures, idle: ServerTiming, beside: ServerTiming): string[] {
  const after = load.latencyAfterFirstWindow;
  const { serverMs, queueMs, inferenceMs } = load.server;
  const p50p95 = (x: Summary) => `${fmt(x.p50, 0)} / ${fmt(x.p95, 0)}`;
  return [
    `single frame on the idle gateway: server time p50 ${fmt(idle.serverMs.p50)} ms (p95 ${fmt(idle.serverMs.p95)}), round trip p50 ${fmt(idle.latencyMs.p50)} ms (${idle.frames} frames); ` +
      `beside another: p50 ${fmt(beside.serverMs.p50)} ms (p95 ${fmt(beside.serverMs.p95)}), round trip p50 ${fmt(beside.latencyMs.p50)} ms (${beside.frames} frames${beside.notDetected ? `, ${beside.notDetected} not detected` : ''})`,
    `schedules ${o.together ? 'all in step' : 'spread over a frame interval'}; latency max ${fmt(load.latency.max, 0)} ms`,
    `inside the gateway, detected frames p50 / p95 (ms): server ${p50p95(serverMs)}, queue ${p50p95(queueMs)}, model run ${p50p95(inferenceMs)}; ` +
      `the rest of the p95 is outside it (sockets, both event loops, the client's send lag)`,
    `after the first ${WINDOW_MS / 1000} s (every connection's first frame is queued, however many connect at once): detected frames' p50 ${fmt(after.p50, 0)} ms, ` +
      `p95 ${fmt(after.p95, 0)} ms = ${fmt(after.p95 / beside.serverMs.p50, 2)}x the service time beside another`,
    fairnessLine(load),
    `detected by codec: ${formatCounts(load.detectedByCodec)}; send lag max ${fmt(load.sendLag.max, 1)} ms; WS ping RTT during load p50 ${fmt(load.pingRtt.p50, 1)} ms, p99 ${fmt(load.pingRtt.p99, 0)} ms`,
    load.clientFailures.length
      ? `client failures: ${load.clientFailures.slice(0, 5).join('; ')}${load.clientFailures.length > 5 ? ` (+${load.clientFailures.length - 5})` : ''}`
      : 'no client lost its connection',
    '',
    cameraTable(load),
  ];
}

/** The figures, each a row of the section's table (the terminal prints them too). */
function figureRows(
  load: LoadFigures,
  idle: ServerTiming,
  beside: ServerTiming,
  rss: readonly RssSample[],
  logs: { lines: number; stackLines: number } | undefined,
  fuzz: FuzzReport | undefined,
): string[][] {
  const rows: string[][] = [
    ['offered', `${load.clients} clients x ${load.fps} fps = ${fmt(load.offeredFps, 0)} frames/s for ${load.durationS} s (${hint})`],
    ['frames sent / answered / unanswered', `${load.sent} / ${load.answered} / ${load.unanswered}`],
    ['frames held by retryAfterMs (due, never sent)', String(load.held)],
    ['outcomes', formatCounts(load.outcomes)],
    ['detected frames/s', fmt(load.detectedFps, 1)],
    [
      'latency of detected frames, p50 / p95 / p99 (ms, from scheduled send)',
      `${fmt(load.latency.p50, 0)} / ${fmt(load.latency.p95, 0)} / ${fmt(load.latency.p99, 0)}`,
    ],
    ['single-frame server time, idle (p50, ms)', fmt(idle.serverMs.p50, 1)],
    ['p95 / single-frame server time', `${fmt(load.latency.p95 / idle.serverMs.p50, 1)}x`],
    [`service time beside another (p50 server ms, ${beside.clients} naive clients, idle)`, fmt(beside.serverMs.p50, 1)],
    [
      `p95 / service time beside another (goal <= ${GOALS.p95OverBeside}x)`,
      `${fmt(load.latency.p95 / beside.serverMs.p50, 2)}x (${verdict(load.latency.p95 / beside.serverMs.p50 <= GOALS.p95OverBeside)})`,
    ],
    [
      `detected per camera, largest / smallest per ${fairWindowS}-s window (goal <= ${GOALS.fairRatio})`,
      `${load.cameras.windows.map((w) => shareText(w.detected.ratio)).join(', ')} (${verdict(load.cameras.worstWindowRatio <= GOALS.fairRatio)})`,
    ],
    [
      'uplink per camera: sent min / mean / max (frames/s)',
      `${load.cameras.sent.min} / ${fmt(load.cameras.sent.mean, 1)} / ${load.cameras.sent.max} (${fmt(load.cameras.sentPerS.mean, 2)})`,
    ],
    [
      'refused per camera: min / mean / max',
      `${load.cameras.refused.min} / ${fmt(load.cameras.refused.mean, 1)} / ${load.cameras.refused.max}`,
    ],
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
  return rows;
}

const target = await targetFrom(o);
const rss = startRssSampler(target.pid, 5000, 'idle');
let exitCode = 0;
try {
  const frame = await cameraFrame();
  process.stderr.write(`gateway ${target.label} at ${target.url}; measuring one frame on the idle gateway...\n`);
  const idle = await measureServerTime(target.url, frame);
  process.stderr.write('measuring frames processed beside another (two naive stop-and-wait clients)...\n');
  const beside = await measureServerTime(target.url, frame, { clients: 2, frames: besideFrames });
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
        ...(o.ignoreRetryAfter ? ['--ignore-retry-after'] : []),
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

  const rows = figureRows(load, idle, beside, rss.samples, logs, fuzz);
  if (o.json) {
    console.log(JSON.stringify({ gateway: target.label, idle, beside, load, rss: rss.samples, logs, fuzz }));
  } else {
    console.log([`gateway: ${target.label}`, '', ...rows.map(([k, v]) => `${k}: ${v}`), ...details(load, idle, beside)].join('\n'));
    if (fuzz) console.log(`\n${formatFuzzReport(fuzz)}`);
  }
  if (o.write) {
    const flags = [
      `--clients ${clients} --duration ${durationS} --fps ${fps}`,
      o.together ? '--together' : '',
      o.ignoreRetryAfter ? '--ignore-retry-after' : '',
    ];
    flags.push(
      fairWindowS !== 60 ? `--fair-window ${fairWindowS}` : '',
      fuzz ? `--fuzz-cases ${fuzz.cases} --seed ${fuzz.seed}` : '--skip-fuzz',
    );
    const command = ['pnpm bench:soak', ...flags.filter(Boolean), '--write'].join(' ');
    publishSection('soak', figuresSection('Soak: overload, then hostile input', command, target.label, rows));
  }
  if (load.unanswered > 0 || (fuzz && (fuzz.failed > 0 || !fuzz.aliveAtEnd))) exitCode = 1;
} finally {
  rss.stop();
  await target.owned?.stop();
}
process.exit(exitCode);
