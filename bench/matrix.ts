/**
 * `pnpm bench:matrix`: the benchmark matrix, run on this machine in one go (about 5 minutes on 2 cores,
 * well under the 15-minute budget), written into docs/BENCHMARKS.md between
 * `<!-- matrix:begin -->` and `<!-- matrix:end -->`.
 *
 * 1. REST (new connection per request) vs WebSocket vs REST keep-alive at added one-way delays.
 * 2. JSON+Base64 vs MessagePack: bytes per message and latency, on loopback and at 20 ms.
 * 3. Serial vs pipelined vs short parallel connections: total time for N frames and per-frame latency.
 * 4. 1 vs 6 concurrent clients, beside the inference-bound limit (bare onnxruntime loops, same model and threads).
 *
 * Starts its own gateway child process on a free port and stops it after. Every cell runs the benchmark
 * client in-process from the same argv `pnpm bench` would parse; the exact commands are listed in the output.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, InvalidArgumentError } from 'commander';
import ort from 'onnxruntime-node';
import { DEFAULT_CONFIG, readModelSpecs, sharedThreads, type ModelSpec } from '@sightline/gateway';
import { startGatewayProcess, type GatewayProcess, type ServerProcess } from '@sightline/gateway/process';
import { MODELS_PATH, type HelloMessage, type ModelsResponse } from '@sightline/shared/protocol';
import { validateModelsResponse } from '@sightline/shared/validation';
import { parseArgs } from './client/args.ts';
import { BENCHMARKS_DOC, markers, replaceSection } from './doc-section.ts';
import { loadInputs } from './client/inputs.ts';
import { bareInference } from './bare-inference.ts';
import { runPythonBareLoop, startFastApiBaseline } from './baselines/fastapi-process.ts';
import { fmt, summarizeBench, summarizeSamples, type BenchSummary } from './client/report.ts';
import { runBenchmark, type BenchResult } from './client/run.ts';
import type { FrameInput } from './client/types.ts';

// The models the gateway it starts serves: the gateway's own default folder.
const MODELS_DIR = DEFAULT_CONFIG.modelsDir;
export const { begin: BEGIN, end: END } = markers('matrix');

const DELAYS = [5, 10, 20, 40, 80, 160, 320];
/** Published edge-study means (ms) for WS and REST at the delays where they were given. */
const EDGE_STUDY: Record<number, { ws: number; rest: number }> = {
  5: { ws: 12.2, rest: 24.8 },
  40: { ws: 47.3, rest: 94.6 },
  320: { ws: 327.8, rest: 654.9 },
};

// ---------------------------------------------------------------------------------------------------------
// Options

interface MatrixOptions {
  out: string;
  /** Frame counts are multiplied by this (quick runs for development). */
  scale: number;
  sections: Set<number>;
  threads: number;
  /** Gateway inference workers (SIGHTLINE_WORKERS). */
  workers: number;
  /** Also measure the FastAPI baseline in section 4. */
  baseline: boolean;
}

function parseMatrixArgs(argv: string[]): MatrixOptions {
  const program = new Command('pnpm bench:matrix')
    .description('Runs the benchmark matrix against a gateway it starts itself and writes the tables into docs/BENCHMARKS.md.')
    .option('--out <file>', 'markdown file to update between the matrix markers', BENCHMARKS_DOC)
    .option('--quick', 'a fifth of the frames everywhere (a smoke run; numbers are noisier)')
    .option('--sections <list>', 'comma-separated subset of 1,2,3,4', (v: string) => {
      const s = v.split(',').map((x) => Number(x.trim()));
      if (s.some((x) => ![1, 2, 3, 4].includes(x))) throw new InvalidArgumentError('sections are 1, 2, 3 and 4.');
      return s;
    })
    .option('--threads <n>', 'onnxruntime intra-op threads for the gateway and the bare loops (default: cores)', (v: string) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('a positive integer.');
      return n;
    })
    .option('--workers <n>', 'gateway inference workers: frames inferred side by side when they queue up (default: cores)', (v: string) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('a positive integer.');
      return n;
    })
    .option('--no-baseline', 'skip the FastAPI baseline in section 4 (it needs python3 and, once, ~90 s of pip install)')
    .allowExcessArguments(false);
  program.parse(argv, { from: 'user' });
  const o = program.opts<{ out: string; quick?: boolean; sections?: number[]; threads?: number; workers?: number; baseline: boolean }>();
  return {
    out: o.out,
    scale: o.quick ? 0.2 : 1,
    sections: new Set(o.sections ?? [1, 2, 3, 4]),
    threads: o.threads ?? availableParallelism(),
    workers: o.workers ?? availableParallelism(),
    baseline: o.baseline,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Running cells

interface Cell {
  argv: string[];
  summary: BenchSummary;
}

/** A cell of the tables: one configuration, possibly pooled over interleaved runs. */
interface Pooled {
  argv: string[];
  summary: BenchSummary;
  runs: number;
}

class Runner {
  readonly commands: string[] = [];
  private readonly inputCache = new Map<string, Promise<FrameInput[]>>();
  private done = 0;
  private readonly started = performance.now();
  unanswered = 0;
  /** Runs in which a client could not connect or lost its connection: its row would silently have fewer clients. */
  readonly failures: string[] = [];

  constructor(
    private readonly gateway: GatewayProcess,
    private readonly scale: number,
  ) {}

  frames(n: number): number {
    return Math.max(3, Math.round(n * this.scale));
  }

  private inputs(argv: string[]): Promise<FrameInput[]> {
    const config = parseArgs(['--url', this.gateway.url, ...argv]);
    const key = JSON.stringify([config.input, config.resize, config.quality]);
    let cached = this.inputCache.get(key);
    if (!cached) {
      cached = loadInputs({ source: config.input, resize: config.resize, quality: config.quality });
      this.inputCache.set(key, cached);
    }
    return cached;
  }

  /** URL -> shell variable, so printed commands name servers by role, not by this run's ports. */
  readonly urlNames = new Map<string, string>();

  private command(argv: string[]): string {
    const words = argv.map((a) => this.urlNames.get(a) ?? (/^[\w./:=,-]+$/.test(a) ? a : `'${a}'`));
    return `pnpm bench ${argv.includes('--url') ? '' : '--url "$GATEWAY" '}${words.join(' ')}`;
  }

  /**
   * Runs each variant `rounds` times with its frames split between the rounds, in ABC CBA ... order, and pools
   * the samples: a burst of noise from other processes then hits every variant alike instead of one cell.
   */
  async interleaved(variants: Array<{ argv: string[]; frames: number }>, rounds = 2): Promise<Pooled[]> {
    const results: BenchResult[][] = variants.map(() => []);
    const chunkArgv = (v: { argv: string[]; frames: number }) => [
      ...v.argv,
      '--frames',
      String(Math.max(2, Math.round(v.frames / rounds))),
    ];
    for (const v of variants)
      this.commands.push(`${this.command([...chunkArgv(v), '--quiet'])}${rounds > 1 ? `   # x${rounds}, interleaved` : ''}`);
    for (let r = 0; r < rounds; r++) {
      const order = variants.map((_, i) => i);
      if (r % 2 === 1) order.reverse();
      for (const i of order) results[i]!.push((await this.execute(chunkArgv(variants[i]!))).result);
    }
    return results.map((chunks, i) => {
      const first = summarizeBench(chunks[0]!);
      const overall = summarizeSamples(
        chunks.flatMap((c) => c.repeats.flatMap((r) => r.samples)),
        chunks.flatMap((c) => c.repeats.flatMap((r) => r.net)),
        chunks.reduce((a, c) => a + c.repeats.reduce((b, r) => b + r.wallMs, 0), 0),
        first.clients,
        'all',
      );
      const ok = chunks.every((c) => summarizeBench(c).ok);
      return { argv: chunkArgv(variants[i]!), summary: { ...first, overall, ok }, runs: chunks.length };
    });
  }

  async run(argv: string[]): Promise<Cell> {
    this.commands.push(this.command([...argv, '--quiet']));
    const { summary } = await this.execute(argv);
    return { argv, summary };
  }

  private async execute(argv: string[]): Promise<{ result: BenchResult; summary: BenchSummary }> {
    const full = [...argv, '--quiet'];
    const config = parseArgs(['--url', this.gateway.url, ...full]);
    const result = await runBenchmark(config, await this.inputs(argv));
    const summary = summarizeBench(result);
    this.unanswered += summary.overall.counts.unanswered + summary.warmupUnanswered;
    for (const r of result.repeats) for (const f of r.clientFailures) this.failures.push(`${config.label ?? summary.setup}: ${f}`);
    this.done++;
    const o = summary.overall;
    process.stderr.write(
      `[${this.done}] ${((performance.now() - this.started) / 1000).toFixed(0).padStart(4)} s  ${(config.label ?? summary.setup).padEnd(34)}` +
        ` mean ${fmt(o.latency.mean)} ms  p95 ${fmt(o.latency.p95)}  ${fmt(o.throughputFps, 1)} fps` +
        `${o.counts.dropped ? `  dropped ${o.counts.dropped}` : ''}${o.counts.unanswered ? `  UNANSWERED ${o.counts.unanswered}` : ''}` +
        `${result.repeats.some((r) => r.clientFailures.length) ? '  CLIENT FAILED' : ''}\n`,
    );
    return { result, summary };
  }
}

// ---------------------------------------------------------------------------------------------------------
// Markdown helpers

function mdTable(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map((_, i) => (i === 0 ? '---' : '---:'))), ...rows.map(line)].join('\n');
}

const ms = (v: number) => fmt(v, 1);
const ratio = (a: number, b: number) => (Number.isFinite(a / b) ? `${(a / b).toFixed(2)}x` : '-');
const pct = (v: number) => (Number.isFinite(v) ? `${v > 0 ? '+' : ''}${(v * 100).toFixed(0)}%` : '-');
const int = (v: number) => (Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : '-');

function droppedNote(s: BenchSummary): string {
  const c = s.overall.counts;
  return c.errors || c.unanswered ? ` (errors ${c.errors}, unanswered ${c.unanswered})` : '';
}

// ---------------------------------------------------------------------------------------------------------
// Sections

async function sectionDelay(runner: Runner): Promise<string> {
  const rows: string[][] = [];
  const serverMs: number[] = [];
  const framesAt = (d: number) => runner.frames(d <= 20 ? 40 : d <= 80 ? 20 : 10);
  for (const d of DELAYS) {
    const common = ['--resize', '240x180', '--warmup', '2', '--delay', String(d)];
    const frames = framesAt(d);
    const [ws, rest, ka] = (await runner.interleaved([
      { argv: ['--label', `ws delay ${d}`, '--transport', 'ws', '--codec', 'msgpack', ...common], frames },
      { argv: ['--label', `rest delay ${d}`, '--transport', 'rest', '--codec', 'raw', ...common], frames },
      { argv: ['--label', `rest-keepalive delay ${d}`, '--transport', 'rest-keepalive', '--codec', 'raw', ...common], frames },
    ])) as [Pooled, Pooled, Pooled];
    const w = ws.summary.overall.latency;
    const r = rest.summary.overall.latency;
    const k = ka.summary.overall.latency;
    // Latency minus the gateway's own time: what the transport and the link cost.
    const wNet = w.mean - ws.summary.overall.serverMs.mean;
    const rNet = r.mean - rest.summary.overall.serverMs.mean;
    const pub = EDGE_STUDY[d];
    serverMs.push(ws.summary.overall.serverMs.mean);
    rows.push([
      `${d}`,
      String(framesAt(d)),
      `${ms(w.mean)} / ${ms(w.p50)}`,
      `${ms(r.mean)} / ${ms(r.p50)}`,
      `**${ratio(r.mean, w.mean)}**`,
      `${ms(wNet)} / ${ms(rNet)} (${ratio(rNet, wNet)})`,
      `${ms(k.mean)} / ${ms(k.p50)}`,
      ratio(k.mean, w.mean),
      ms(ws.summary.overall.network.ping?.p50 ?? Number.NaN),
      `${ms(ws.summary.overall.serverMs.mean)} / ${ms(rest.summary.overall.serverMs.mean)}`,
      pub ? `${pub.ws} / ${pub.rest} (${ratio(pub.rest, pub.ws)})` : '~2.0x',
    ]);
  }
  return [
    '### 1. REST (new connection per request) vs WebSocket, with added delay',
    '',
    'One client, serial, 240x180 JPEG frames (the fixture photos, re-encoded at quality 80, cycling). WebSocket: one',
    'connection, MessagePack. REST: `POST /api/detect` with the JPEG as the raw body, a new TCP connection per request',
    "(`Connection: close`); keep-alive: one reused connection. The delay is added in each direction by the client's",
    'user-space proxy, which also makes a new connection pay one handshake round trip before its first bytes (what',
    'SYN/SYN-ACK costs on a real path). Latency is full process: encode, send, gateway, reply, decode.',
    '',
    mdTable(
      [
        'one-way delay (ms)',
        'frames',
        'WS mean / p50',
        'REST new conn mean / p50',
        'speedup (REST / WS mean)',
        'without server time: WS / REST (ratio)',
        'REST keep-alive mean / p50',
        'keep-alive / WS',
        'WS ping RTT p50',
        'server ms WS / REST',
        'edge study WS / REST (ratio)',
      ],
      rows,
    ),
    '',
    'Expectation from round trips alone: WS costs 1 RTT per frame, REST on a new connection 2 (handshake + request). The',
    `edge study's server answered in ~2 ms, so its ratio is 2x at every delay; here each frame also spends ~${ms(serverMs.reduce((a, b) => a + b, 0) / serverMs.length)} ms in the`,
    'gateway (decode + inference on 2 cores), which dilutes the ratio at small delays. The "without server time" column',
    "subtracts the gateway's reported serverMs and shows the transport alone. Keep-alive REST behaves like WS.",
  ].join('\n');
}

/** Links of the codec comparison: loopback, an added delay, and that delay on a capped uplink where bytes cost time. */
const CODEC_LINKS = [
  { name: 'loopback', argv: [] as string[], frames: 80 },
  { name: '20 ms', argv: ['--delay', '20'], frames: 40 },
  { name: '20 ms, 4 Mbit/s', argv: ['--delay', '20', '--bandwidth', '4000'], frames: 20 },
];

async function sectionCodec(runner: Runner): Promise<string> {
  const rows: string[][] = [];
  const ratios: string[] = [];
  const serverMs: number[] = [];
  for (const link of CODEC_LINKS) {
    const common = ['--resize', '640x480', '--warmup', '3', '--transport', 'ws', ...link.argv];
    const frames = runner.frames(link.frames);
    const [json, mp] = (await runner.interleaved([
      { argv: ['--label', `json ${link.name}`, '--codec', 'json', ...common], frames },
      { argv: ['--label', `msgpack ${link.name}`, '--codec', 'msgpack', ...common], frames },
    ])) as [Pooled, Pooled];
    for (const [name, cell] of [
      ['JSON + Base64', json],
      ['MessagePack', mp],
    ] as const) {
      const o = cell.summary.overall;
      serverMs.push(o.serverMs.mean);
      rows.push([
        link.name,
        name,
        int(o.bytesUpPerFrame),
        int(o.bytesDownPerFrame),
        ms(o.latency.mean),
        ms(o.latency.p50),
        ms(o.latency.p95),
        ms(o.serverMs.mean),
      ]);
    }
    const j = json.summary.overall;
    const m = mp.summary.overall;
    ratios.push(
      `- ${link.name}: MessagePack messages are **${pct(m.bytesUpPerFrame / j.bytesUpPerFrame - 1)}** bytes up, ` +
        `mean latency **${pct(m.latency.mean / j.latency.mean - 1)}** (p50 ${pct(m.latency.p50 / j.latency.p50 - 1)}), server time ${pct(m.serverMs.mean / j.serverMs.mean - 1)} vs JSON.`,
    );
  }
  const meanServer = serverMs.reduce((a, b) => a + b, 0) / serverMs.length;
  return [
    '### 2. JSON + Base64 vs MessagePack',
    '',
    'One client, WebSocket, serial, 640x480 JPEG frames. Bytes are WebSocket payload + frame header per message. The',
    'capped link limits each direction of the delay proxy to 4 Mbit/s, a mobile uplink, where every byte costs time.',
    '',
    mdTable(['link', 'codec', 'bytes up / msg', 'bytes down / msg', 'mean ms', 'p50 ms', 'p95 ms', 'server ms'], rows),
    '',
    ...ratios,
    '- Published: MessagePack ~25% smaller and ~40% lower latency than JSON. Base64 alone inflates the image by 4/3,',
    `  so "25% smaller" is the expected size gain. Parsing either codec costs well under a millisecond, so on a fast link`,
    `  the latency difference is lost in the ~${ms(meanServer)} ms each frame spends in the gateway; where the link is slow the`,
    '  smaller message is the faster one.',
  ].join('\n');
}

async function sectionPatterns(runner: Runner): Promise<string> {
  const total = runner.frames(1000);
  const shortClients = 8;
  const common = ['--resize', '240x180', '--transport', 'ws', '--codec', 'msgpack', '--warmup', '3'];
  const cells: Array<[string, Cell]> = [
    ['serial, one connection', await runner.run(['--label', 'serial', ...common, '--frames', String(total)])],
    [
      'pipelined K=4, one connection',
      await runner.run(['--label', 'pipelined K=4', ...common, '--mode', 'pipelined', '--in-flight', '4', '--frames', String(total)]),
    ],
    [
      'pipelined K=8, one connection',
      await runner.run(['--label', 'pipelined K=8', ...common, '--mode', 'pipelined', '--in-flight', '8', '--frames', String(total)]),
    ],
    [
      `short connections, ${shortClients} in parallel`,
      await runner.run([
        '--label',
        `short x${shortClients}`,
        ...common,
        '--mode',
        'short',
        '--clients',
        String(shortClients),
        '--frames',
        String(Math.round(total / shortClients)),
      ]),
    ],
  ];
  const rows = cells.map(([name, cell]) => {
    const o = cell.summary.overall;
    return [
      name,
      String(o.counts.sent),
      String(o.counts.ok),
      String(o.counts.dropped),
      fmt(o.wallMs / 1000, 2),
      fmt(o.throughputFps, 1),
      `${ms(o.latency.mean)} / ${ms(o.latency.p50)} / ${ms(o.latency.p95)}`,
      ms(o.queueMs.mean) + droppedNote(cell.summary),
    ];
  });
  return [
    '### 3. Serial vs pipelined vs short parallel connections',
    '',
    `${total} frames of 240x180 per pattern${total < 1000 ? ` (scaled down from 1000 for time)` : ''}, WebSocket, MessagePack. "All answered after" is the`,
    'wall time of the measured phase (first send to last answer). The gateway processes 2 frames per connection and queues 2',
    '(newest wins), so K=8 gets `dropped` answers: they are counted, and excluded from latency and throughput. The',
    'client refills a slot as soon as its answer arrives, a `dropped` one included, so with K=8 superseded frames',
    'cascade and most of the 1000 are dropped within a second: the newest-wins policy working as designed (a camera',
    'sending at a fixed rate would not refill that fast). Compare K=8 by its completed frames, not its time.',
    '',
    mdTable(
      [
        'pattern',
        'sent',
        'completed',
        'dropped',
        'all answered after (s)',
        'completed frames/s',
        'latency mean / p50 / p95 ms',
        'server queue ms',
      ],
      rows,
    ),
    '',
    '- Published: serial 50 s vs parallel 8 s total for 1000 images, but 0.05 s vs 1.5 s per message. Parallelism',
    '  trades per-message latency for throughput; on a 2-core machine the inference worker is the ceiling either way.',
  ].join('\n');
}

const ORT_NODE_VERSION = (ort.env as { versions?: { common?: string } }).versions?.common ?? '';

function modelSpec(modelName: string): ModelSpec {
  const spec = readModelSpecs(MODELS_DIR).find((s) => s.manifest.name === modelName);
  if (!spec) throw new Error(`no manifest for model ${modelName} under ${MODELS_DIR}`);
  return spec;
}

interface BareLimit {
  runtime: 'node' | 'python';
  label: string;
  fps: number;
  meanMs: number;
  before: number;
  after: number;
  runs: number;
}

/**
 * Bare onnxruntime loops for both runtimes (Node: the gateway's; Python: the baseline's), before and after the
 * clients, the faster of the two runs kept (the machine is noisy). Two configurations each: one run with every
 * thread, and runs side by side on a share each, as the gateway's workers do when frames queue up.
 */
async function measureBareLimits(
  modelName: string,
  threads: number,
  workers: number,
  seconds: number,
  python: boolean,
  during: () => Promise<void>,
): Promise<BareLimit[]> {
  const spec = modelSpec(modelName);
  // The Python loop reads the manifest itself: it takes the model's folder (models with a `file` only).
  const folder = dirname(spec.modelPath);
  const configs = [{ threads, streams: 1 }, ...(workers > 1 ? [{ threads: sharedThreads(threads, workers), streams: workers }] : [])];
  const runtimes = python ? (['node', 'python'] as const) : (['node'] as const);
  const once = async (runtime: 'node' | 'python', c: { threads: number; streams: number }) => {
    try {
      if (runtime === 'node') return await bareInference(spec, { ...c, seconds });
      return await runPythonBareLoop(folder, c.threads, c.streams, seconds);
    } catch (error) {
      process.stderr.write(`bare ${runtime} loop failed: ${error instanceof Error ? error.message.slice(0, 300) : String(error)}\n`);
      return undefined;
    }
  };
  type Measured = { fps: number; meanMs: number; runs: number; onnxruntime?: string } | undefined;
  const cells = runtimes.flatMap((runtime) => configs.map((c) => ({ runtime, c })));
  process.stderr.write('bare onnxruntime loops (before)...\n');
  const before: Measured[] = [];
  for (const cell of cells) before.push(await once(cell.runtime, cell.c));
  await during();
  process.stderr.write('bare onnxruntime loops (after)...\n');
  const after: Measured[] = [];
  for (const cell of [...cells].reverse()) after.unshift(await once(cell.runtime, cell.c));
  return cells.flatMap(({ runtime, c }, i) => {
    const [b, a] = [before[i], after[i]];
    const best = b && a ? (a.fps > b.fps ? a : b) : (b ?? a);
    if (!best) return [];
    const version = runtime === 'node' ? `onnxruntime-node ${ORT_NODE_VERSION}` : `onnxruntime ${best.onnxruntime ?? ''} (Python)`;
    const shape =
      c.streams === 1 ? `1 run x ${c.threads} threads` : `${c.streams} runs side by side x ${c.threads} thread${c.threads > 1 ? 's' : ''}`;
    return [
      {
        runtime,
        label: `bare ${version}, ${shape}`,
        fps: best.fps,
        meanMs: best.meanMs,
        before: b?.fps ?? Number.NaN,
        after: a?.fps ?? Number.NaN,
        runs: (b?.runs ?? 0) + (a?.runs ?? 0),
      },
    ];
  });
}

async function sectionClients(
  runner: Runner,
  modelName: string,
  threads: number,
  workers: number,
  scale: number,
  baselineUrl?: string,
): Promise<string> {
  const common = ['--resize', '640x480', '--transport', 'ws', '--codec', 'msgpack', '--warmup', '3'];
  const servers = [
    { name: 'Sightline', url: [] as string[] },
    ...(baselineUrl ? [{ name: 'FastAPI baseline', url: ['--url', baselineUrl] }] : []),
  ];
  let cells: Pooled[] = [];
  const limits = await measureBareLimits(modelName, threads, workers, Math.max(2, 5 * scale), Boolean(baselineUrl), async () => {
    cells = await runner.interleaved(
      servers.flatMap((server) => [
        { argv: ['--label', `${server.name}, 1 client`, ...server.url, ...common], frames: runner.frames(300) },
        { argv: ['--label', `${server.name}, 6 clients`, ...server.url, ...common, '--clients', '6'], frames: runner.frames(100) },
      ]),
    );
  });
  const best = (runtime: 'node' | 'python') =>
    limits.filter((l) => l.runtime === runtime).reduce<BareLimit | undefined>((a, l) => (!a || l.fps > a.fps ? l : a), undefined);
  const nodeLimit = best('node');
  const pyLimit = best('python');
  const limitOf = (server: string) => (server === 'Sightline' ? nodeLimit?.fps : pyLimit?.fps) ?? Number.NaN;
  const rows = servers.flatMap((server, s) =>
    (['1', '6'] as const).map((n, i) => {
      const cell = cells[s * 2 + i]!;
      const o = cell.summary.overall;
      return [
        server.name,
        n,
        ms(o.latency.mean),
        ms(o.latency.p95),
        ms(o.latency.p99),
        fmt(o.throughputFps, 1),
        fmt(o.throughputPerClientFps, 1),
        ms(o.serverMs.mean),
        ms(o.inferenceMs.mean),
        ms(o.queueMs.mean),
        `${((o.throughputFps / limitOf(server.name)) * 100).toFixed(0)}%` + droppedNote(cell.summary),
      ];
    }),
  );
  for (const l of limits) {
    const limit = l.runtime === 'node' ? nodeLimit! : pyLimit!;
    rows.push([
      `${l.label} (before: ${fmt(l.before, 1)}, after: ${fmt(l.after, 1)} runs/s)`,
      '',
      ms(l.meanMs),
      '',
      '',
      fmt(l.fps, 1),
      '',
      '',
      ms(l.meanMs),
      '',
      `${((l.fps / limit.fps) * 100).toFixed(0)}%${l === limit ? ' (limit)' : ''}`,
    ]);
  }
  const comparison = baselineUrl
    ? (() => {
        const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
        const [s1, s6, b1, b6] = cells.map((c) => c.summary.overall) as [
          BenchSummary['overall'],
          BenchSummary['overall'],
          BenchSummary['overall'],
          BenchSummary['overall'],
        ];
        return [
          '',
          `Same machine, same model file, same thread count, same client, interleaved: FastAPI / Sightline mean latency`,
          `${ratio(b1.latency.mean, s1.latency.mean)} with 1 client and ${ratio(b6.latency.mean, s6.latency.mean)} with 6; p99 ${ratio(b1.latency.p99, s1.latency.p99)} and`,
          `${ratio(b6.latency.p99, s6.latency.p99)}; Sightline / FastAPI throughput ${ratio(s1.throughputFps, b1.throughputFps)} and ${ratio(s6.throughputFps, b6.throughputFps)}.`,
          'The baseline (bench/baselines/fastapi) is FastAPI + uvicorn, Pillow decode, numpy pre/post-processing and',
          'onnxruntime in a thread pool: the idiomatic Python server, doing the same work and speaking the same protocol,',
          "with onnxruntime's default session options and one inference at a time with every thread.",
          ...(pyLimit && nodeLimit
            ? [
                '',
                `Each server's "% of limit" is against the best bare loop of its own runtime: ${fmt(nodeLimit.fps, 1)} runs/s for`,
                `onnxruntime-node, ${fmt(pyLimit.fps, 1)} for Python's onnxruntime (${ratio(pyLimit.fps, nodeLimit.fps)}). What each server adds around`,
                `inference with 1 client (server ms - inference ms, means): Sightline ${ms(s1.serverMs.mean - s1.inferenceMs.mean)} ms,`,
                `FastAPI ${ms(b1.serverMs.mean - b1.inferenceMs.mean)} ms. With 6 clients Sightline's frames queue up and run side by side on one thread`,
                'each, which is why its inference ms per frame is higher while its throughput is too.',
              ]
            : []),
        ];
      })()
    : ['', 'The FastAPI baseline was not run (`--no-baseline`, or python3/PyPI unavailable).'];
  return [
    '### 4. One vs six concurrent clients, and the inference-bound limit',
    '',
    `Each client: its own WebSocket, serial, MessagePack, 640x480 JPEG frames, all started together. The last rows are`,
    `bare onnxruntime loops on the same model (\`${modelName}\`, a fixed image-like tensor) with the gateway's session options:`,
    `one run with every thread (${threads}), and ${workers} runs side by side on a share each, as the gateway runs queued frames;`,
    'run before and after the clients while the servers sat idle, the faster kept. No decode, no resize, no I/O.',
    '"% of limit" is the server\'s completed frames/s over the best bare loop of its own runtime.',
    '',
    mdTable(
      [
        'server',
        'clients',
        'mean ms',
        'p95 ms',
        'p99 ms',
        'frames/s total',
        'frames/s per client',
        'server ms',
        'inference ms',
        'queue ms',
        '% of limit',
      ],
      rows,
    ),
    ...comparison,
    '',
    '- Published (Python / Go YOLO servers): 1 client avg 35.1 / 30.5 ms, P99 54.6 / 50.4 ms; 6 clients avg 123 / 118 ms,',
    '  8.4 / 8.8 FPS per client. Their model and hardware differ; compare the shape (latency grows with clients once',
    '  inference is saturated, total throughput stays at the limit), not the absolute numbers.',
    '- The clients, the servers and their inference threads share the same 2 cores here, so client-side encoding and',
    '  decoding take CPU away from inference in the 6-client runs.',
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------------------
// Document

function machineInfo(
  threads: number,
  workers: number,
  hello: HelloMessage | undefined,
  models: ModelsResponse | undefined,
  loadBefore: number[],
  loadAfter: number[],
): string {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const limits = hello?.limits;
  return [
    `- Date: ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')}`,
    `- CPU: ${cpu}, ${availableParallelism()} cores available, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM`,
    `- Node ${process.version}, onnxruntime-node ${ORT_NODE_VERSION}`.trimEnd(),
    `- Gateway: default model \`${models?.defaultModel ?? '?'}\`, ${threads} intra-op thread(s) for a frame inferred alone, ${workers} inference worker(s) side by side when frames queue up` +
      (limits ? `, per connection ${limits.maxInFlight} in flight + queue ${limits.queueLength}` : ''),
    '- Everything on loopback: client, delay proxy and gateway share the machine.',
    `- 1-minute load average before / after the run: ${loadBefore[0]!.toFixed(2)} / ${loadAfter[0]!.toFixed(2)} ` +
      `(on ${availableParallelism()} cores; well above the matrix's own ~2 means other processes competed for the CPU)`,
  ].join('\n');
}

export function replaceBetweenMarkers(existing: string | undefined, block: string): string {
  return replaceSection(existing, 'matrix', block);
}

async function startBaseline(threads: number): Promise<ServerProcess | undefined> {
  process.stderr.write('starting the FastAPI baseline (first time: creating its venv from PyPI)...\n');
  try {
    return await startFastApiBaseline(threads);
  } catch (error) {
    process.stderr.write(
      `FastAPI baseline unavailable, section 4 runs without it: ${error instanceof Error ? error.message.slice(0, 500) : String(error)}\n`,
    );
    return undefined;
  }
}

async function main(): Promise<number> {
  const options = parseMatrixArgs(process.argv.slice(2).filter((a, i) => !(i === 0 && a === '--')));
  const started = performance.now();
  const loadBefore = loadavg();
  process.stderr.write(`starting gateway (${options.threads} thread(s), ${options.workers} worker(s))...\n`);
  const gateway = await startGatewayProcess({
    env: { SIGHTLINE_THREADS: String(options.threads), SIGHTLINE_WORKERS: String(options.workers) },
  });
  // Interrupted: do not leave the gateway or the baseline behind.
  const children: Array<GatewayProcess | ServerProcess> = [gateway];
  const onSignal = () => void Promise.allSettled(children.map((c) => c.stop())).finally(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const runner = new Runner(gateway, options.scale);
  const sections: string[] = [];
  let hello: HelloMessage | undefined;
  let models: ModelsResponse | undefined;
  try {
    models = validateModelsResponse(await (await fetch(`${gateway.url}${MODELS_PATH}`)).json());
    // One throwaway run: load the client's modules and the gateway's code paths before anything is measured.
    const probe = await runBenchmark(
      parseArgs(['--url', gateway.url, '--frames', '5', '--resize', '240x180', '--quiet']),
      await loadInputs({ source: { kind: 'default' }, resize: { width: 240, height: 180 } }),
    );
    hello = probe.hello;
    if (options.sections.has(1)) sections.push(await sectionDelay(runner));
    if (options.sections.has(2)) sections.push(await sectionCodec(runner));
    if (options.sections.has(3)) sections.push(await sectionPatterns(runner));
    if (options.sections.has(4)) {
      const baseline = options.baseline ? await startBaseline(options.threads) : undefined;
      if (baseline) children.push(baseline);
      try {
        if (baseline) runner.urlNames.set(baseline.url, '"$BASELINE"');
        sections.push(await sectionClients(runner, models.defaultModel, options.threads, options.workers, options.scale, baseline?.url));
      } finally {
        await baseline?.stop();
      }
    }
  } finally {
    await gateway.stop();
  }
  const minutes = (performance.now() - started) / 60_000;
  const loadAfter = loadavg();
  const block = [
    '## Benchmark matrix',
    '',
    `Generated by \`pnpm bench:matrix${options.scale !== 1 ? ' --quick' : ''}\` (bench/matrix.ts) in ${minutes.toFixed(1)} minutes; every`,
    'number below comes from this one run. Regenerate rather than edit. Sections 1, 2 and 4 run each variant in two',
    'interleaved halves (A B C, then C B A) and pool the samples, so a burst of load from elsewhere hits every variant',
    'alike; latencies are full process (client encode to decoded reply), in ms.',
    '',
    machineInfo(options.threads, options.workers, hello, models, loadBefore, loadAfter),
    options.scale !== 1 ? '\n**Quick run: a fifth of the frames; numbers are noisier than a full run.**' : '',
    Math.max(loadBefore[0]!, loadAfter[0]!) > 1.5 * availableParallelism()
      ? `\n**Warning: the machine was busy (load average up to ${Math.max(loadBefore[0]!, loadAfter[0]!).toFixed(1)} on ${availableParallelism()} cores): ` +
        'absolute latencies and frames/s are inflated by other processes; ratios measured within a section are more robust. Re-run on a quiet machine.**'
      : '',
    '',
    sections.join('\n\n'),
    '',
    '<details><summary>Exact commands (the matrix runs these in-process against the gateway it started)</summary>',
    '',
    '```sh',
    `# gateway: cd gateway && PORT=8080 SIGHTLINE_THREADS=${options.threads} SIGHTLINE_WORKERS=${options.workers} node --import tsx src/main.ts`,
    'GATEWAY=http://127.0.0.1:8080',
    ...(runner.urlNames.size
      ? [
          `# baseline: bench/baselines/fastapi/setup.sh && bench-results/.venv-fastapi/bin/python bench/baselines/fastapi/server.py --port 8090 --threads ${options.threads}`,
          'BASELINE=http://127.0.0.1:8090',
        ]
      : []),
    ...runner.commands,
    '```',
    '',
    '</details>',
    runner.unanswered ? `\n**Warning: ${runner.unanswered} frame(s) went unanswered during this run.**` : '',
    runner.failures.length ? `\n**Warning: clients failed during this run: ${runner.failures.join('; ')}.**` : '',
  ].join('\n');
  const existing = existsSync(options.out) ? readFileSync(options.out, 'utf8') : undefined;
  writeFileSync(options.out, replaceBetweenMarkers(existing, block));
  process.stderr.write(`wrote ${options.out} (${minutes.toFixed(1)} min)\n`);
  for (const f of runner.failures) process.stderr.write(`client failure: ${f}\n`);
  return runner.unanswered || runner.failures.length ? 1 : 0;
}

const isEntry = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1]);
if (isEntry) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`matrix failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
}
