/**
 * `pnpm bench:matrix`: the benchmark matrix, run on this machine in one go (about 5 minutes on 2 cores,
 * well under the 15-minute budget), written into docs/runs/matrix.md between
 * `<!-- matrix:begin -->` and `<!-- matrix:end -->`.
 *
 * 1. REST (new connection per request) vs WebSocket vs REST keep-alive at added one-way delays.
 * 2. JSON+Base64 vs MessagePack: bytes per message and latency, on loopback and at 20 ms.
 * 3. Serial vs pipelined vs short parallel connections: total time for N frames and per-frame latency.
 * 4. 1 vs 6 concurrent stop-and-wait clients and 6 open-loop cameras, on Sightline and two Python peers (the
 *    FastAPI baseline and the OpenCV peer), beside the machine's limits (bare inference, and bare decode +
 *    inference loops, same model, threads and frames): matrix/section-clients.ts.
 *
 * Starts its own gateway child process (and the Python peers) on free ports and stops them after. Every cell runs the benchmark
 * client in-process from the same argv `pnpm bench` would parse; the exact commands are listed in the output.
 */
import { availableParallelism } from 'node:os';
import { Command, InvalidArgumentError } from 'commander';
import { DEFAULT_CONFIG } from '@sightline/gateway';
import { startGatewayProcess, type GatewayProcess, type ServerProcess } from '@sightline/harness/process';
import type { HelloMessage, ModelsResponse } from '@sightline/shared/protocol';
import { benchModelSpec } from '../bare/model-specs.ts';
import { EDGE_STUDY, EDGE_STUDY_DELAYS_MS } from '../edge-study.ts';
import { parseArgs } from '../client/args.ts';
import { PEERS, peerCommand, setupPythonPeers, startPythonPeer, type PythonPeer } from '../baselines/fastapi-process.ts';
import { fetchModels } from '../client/run.ts';
import { commandArgv, positive, runIfEntry, stopOnSignal } from '../cli.ts';
import { probeGateway } from '../client/probe.ts';
import { loadAccess } from '../client/access.ts';
import { ORT_NODE_VERSION } from './bare-limits.ts';
import { Runner, type Cell, type Pooled } from './runner.ts';
import { sectionClients } from './section-clients.ts';
import {
  commandsBlock,
  contextLines,
  finishRun,
  fmt,
  gatewaySetup,
  int,
  mdTable,
  ms,
  pct,
  ratio,
  runsDoc,
  runWarnings,
  sectionHead,
  startRun,
  writeSection,
} from '../report.ts';

// The models the gateway it starts serves: the gateway's own default folder.
const MODELS_DIR = DEFAULT_CONFIG.modelsDir;
/** Shell variables naming the peers in the printed commands. */
const PEER_VARIABLES: Record<PythonPeer, string> = { baseline: 'BASELINE', opencv: 'OPENCV' };

const DELAYS = EDGE_STUDY_DELAYS_MS;

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
  /** The Python peers section 4 compares the gateway with. */
  peers: PythonPeer[];
}

function parseMatrixArgs(argv: string[]): MatrixOptions {
  const program = new Command('pnpm bench:matrix')
    .description('Runs the benchmark matrix against a gateway it starts itself and writes the tables into docs/runs/matrix.md.')
    .option('--out <file>', 'markdown file to update between the matrix markers', runsDoc('matrix'))
    .option('--quick', 'a fifth of the frames everywhere (a smoke run; numbers are noisier)')
    .option('--sections <list>', 'comma-separated subset of 1,2,3,4', (v: string) => {
      const s = v.split(',').map((x) => Number(x.trim()));
      if (s.some((x) => ![1, 2, 3, 4].includes(x))) throw new InvalidArgumentError('sections are 1, 2, 3 and 4.');
      return s;
    })
    .option('--threads <n>', 'onnxruntime intra-op threads for the gateway and the bare loops (default: cores)', positive('integer'))
    .option(
      '--workers <n>',
      'gateway inference workers: frames inferred side by side when they queue up (default: cores)',
      positive('integer'),
    )
    .option('--peers <list>', 'Python peers in section 4: comma-separated subset of baseline,opencv (default: both)', (v: string) => {
      const peers = v.split(',').map((x) => x.trim());
      if (peers.some((p) => !(p in PEERS))) throw new InvalidArgumentError(`peers are ${Object.keys(PEERS).join(' and ')}.`);
      return peers as PythonPeer[];
    })
    .option('--no-baseline', 'no Python peers in section 4 (they need python3 and, once, ~20-90 s of pip install)')
    .allowExcessArguments(false);
  program.parse(argv, { from: 'user' });
  const o = program.opts<{
    out: string;
    quick?: boolean;
    sections?: number[];
    threads?: number;
    workers?: number;
    peers?: PythonPeer[];
    baseline: boolean;
  }>();
  return {
    out: o.out,
    scale: o.quick ? 0.2 : 1,
    sections: new Set(o.sections ?? [1, 2, 3, 4]),
    threads: o.threads ?? availableParallelism(),
    workers: o.workers ?? availableParallelism(),
    peers: o.baseline ? [...new Set(o.peers ?? (Object.keys(PEERS) as PythonPeer[]))] : [],
  };
}

// ---------------------------------------------------------------------------------------------------------
// Running cells

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
    'capped link limits each direction of the link proxy to 4 Mbit/s, a mobile uplink, where every byte costs time.',
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
      ms(o.queueMs.mean) +
        (o.counts.errors || o.counts.unanswered ? ` (errors ${o.counts.errors}, unanswered ${o.counts.unanswered})` : ''),
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

// ---------------------------------------------------------------------------------------------------------
// Document

/** The peers that could be started: a peer that cannot (no python3, no PyPI) is left out, said on stderr. */
async function startPeers(peers: readonly PythonPeer[], threads: number): Promise<Array<{ peer: PythonPeer; server: ServerProcess }>> {
  if (peers.length === 0) return [];
  process.stderr.write('setting up the Python peers (first time: creating their venv from PyPI)...\n');
  try {
    await setupPythonPeers();
  } catch (error) {
    process.stderr.write(
      `Python peers unavailable, section 4 runs without them: ${error instanceof Error ? error.message.slice(0, 500) : String(error)}\n`,
    );
    return [];
  }
  const started: Array<{ peer: PythonPeer; server: ServerProcess }> = [];
  for (const peer of peers) {
    try {
      started.push({ peer, server: await startPythonPeer(peer, threads) });
    } catch (error) {
      process.stderr.write(
        `${PEERS[peer].name} did not start, section 4 runs without it: ${error instanceof Error ? error.message.slice(0, 500) : String(error)}\n`,
      );
    }
  }
  return started;
}

async function main(): Promise<number> {
  const options = parseMatrixArgs(commandArgv());
  const start = startRun();
  process.stderr.write(`starting gateway (${options.threads} thread(s), ${options.workers} worker(s))...\n`);
  const gateway = await startGatewayProcess({
    env: { SIGHTLINE_THREADS: String(options.threads), SIGHTLINE_WORKERS: String(options.workers) },
  });
  // Interrupted: do not leave the gateway or the peers behind.
  const children: Array<GatewayProcess | ServerProcess> = [gateway];
  const unlisten = stopOnSignal(() => children);
  const runner = new Runner(gateway, options.scale);
  const sections: string[] = [];
  let hello: HelloMessage | undefined;
  let models: ModelsResponse | undefined;
  let startedPeers: PythonPeer[] = [];
  try {
    // With SIGHTLINE_TOKEN exported, the gateway (which inherits it) asks for it: read it as the client does.
    models = await fetchModels(gateway.url, loadAccess(parseArgs(['--url', gateway.url])));
    // One throwaway run: load the client's modules and the gateway's code paths before anything is measured.
    hello = await probeGateway(gateway.url, ['--frames', '5']);
    if (options.sections.has(1)) sections.push(await sectionDelay(runner));
    if (options.sections.has(2)) sections.push(await sectionCodec(runner));
    if (options.sections.has(3)) sections.push(await sectionPatterns(runner));
    if (options.sections.has(4)) {
      const peers = await startPeers(options.peers, options.threads);
      children.push(...peers.map((p) => p.server));
      try {
        for (const { peer, server } of peers) runner.urlNames.set(server.url, PEER_VARIABLES[peer]);
        startedPeers = peers.map((p) => p.peer);
        sections.push(
          await sectionClients(runner, {
            spec: await benchModelSpec(models.defaultModel, MODELS_DIR),
            threads: options.threads,
            workers: options.workers,
            scale: options.scale,
            maxPixels: DEFAULT_CONFIG.maxPixels,
            peers: peers.map(({ peer, server }) => ({ name: PEERS[peer].name, url: server.url })),
          }),
        );
      } finally {
        await Promise.all(peers.map((p) => p.server.stop()));
      }
    }
  } finally {
    unlisten();
    await gateway.stop();
  }
  const context = finishRun(start);
  const limits = hello?.limits;
  const block = [
    ...sectionHead(
      'Benchmark matrix',
      `pnpm bench:matrix${options.scale !== 1 ? ' --quick' : ''}`,
      'bench/matrix/main.ts',
      context.minutes,
    ),
    'Sections 1, 2 and 4 run each variant in two interleaved halves (A B C, then C B A) and pool the samples, so a',
    'burst of load from elsewhere hits every variant alike; latencies are full process (client encode to decoded reply), in ms.',
    '',
    contextLines(context, [
      `onnxruntime-node ${ORT_NODE_VERSION}`,
      `Gateway: default model \`${models?.defaultModel ?? '?'}\`, ${options.threads} intra-op thread(s) for a frame inferred alone, ${options.workers} inference worker(s) side by side when frames queue up` +
        (limits ? `, per connection ${limits.maxInFlight} in flight + queue ${limits.queueLength}` : ''),
      'Everything on loopback: client, link proxy and gateway share the machine.',
    ]),
    options.scale !== 1 ? '\n**Quick run: a fifth of the frames; numbers are noisier than a full run.**' : '',
    '',
    sections.join('\n\n'),
    '',
    commandsBlock(
      [
        ...gatewaySetup(options),
        ...(startedPeers.length ? ['# Python peers: bench/baselines/fastapi/setup.sh, then'] : []),
        ...startedPeers.flatMap((peer, i) => [
          `# ${peerCommand(peer, options.threads, String(8090 + i))}`,
          `${PEER_VARIABLES[peer]}=http://127.0.0.1:${8090 + i}`,
        ]),
        ...runner.commands,
      ],
      'the matrix runs these in-process against the gateway it started',
    ),
    ...runWarnings(runner.unanswered, runner.failures),
  ].join('\n');
  writeSection('matrix', block, options.out);
  process.stderr.write(`wrote ${options.out} (${context.minutes.toFixed(1)} min)\n`);
  for (const f of runner.failures) process.stderr.write(`client failure: ${f}\n`);
  return runner.unanswered || runner.failures.length ? 1 : 0;
}

runIfEntry(import.meta.url, 'matrix', main);
