/**
 * The generated section of one comparison: what ran where, the tables, the ratios, and the exact commands.
 * Pure: everything measured or looked up is passed in, so the same run always gives the same text.
 */
import type { BenchClient } from './bench-client.ts';
import { CELLS, lengthArgv, type CellSpec } from './cells.ts';
import { COMPARE_DEFAULTS, WEBRTC_DEFAULT_LINKS, type CompareOptions } from './options.ts';
import { abLines, engineLines } from './ratios.ts';
import { engineTable, measureTable, type ServerResults } from './tables.ts';

export interface RunContext {
  /** ISO date of the run. */
  date: string;
  cpu: string;
  cores: number;
  ramGiB: number;
  node: string;
  /** 1-minute load averages before and after. */
  loadBefore: number;
  loadAfter: number;
  minutes: number;
  /** ab: the two checkouts, as `describeCheckout` puts them. */
  checkouts?: { before: string; after: string };
}

export interface CompareReport {
  options: CompareOptions;
  context: RunContext;
  servers: readonly ServerResults[];
  /** The client that drove each server, in the servers' order. */
  clients: ReadonlyArray<Pick<BenchClient, 'description' | 'protocol'>>;
  /** setupLines(): how to start each server by hand, and its variable. */
  setup: readonly string[];
  /** halfCommands(): the benchmark commands. */
  commands: readonly string[];
  unanswered: number;
  failures: readonly string[];
  /** Servers of the preset left out (a peer that could not start or be driven), with the reason. */
  notMeasured?: readonly string[];
  cells?: readonly CellSpec[];
}

/** A word as a shell needs it: quoted when it holds anything but plain characters. */
export function shellWord(word: string): string {
  return /^[\w./:=,@+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The command that produced the section, as a reader would retype it. */
export function invocation(options: CompareOptions): string {
  const words = ['pnpm bench:compare', '--preset', options.preset];
  if (options.before !== undefined) words.push('--before', options.before);
  if (options.before !== undefined && options.client !== 'same') words.push('--client', options.client);
  if (options.repeats !== 2) words.push('--repeats', String(options.repeats));
  if (options.scale !== 1) words.push('--scale', String(options.scale));
  if (options.preset === 'naive' && options.hog !== COMPARE_DEFAULTS.hog) words.push('--hog', String(options.hog));
  if (options.threads !== 2) words.push('--threads', String(options.threads));
  if (options.workers !== 2) words.push('--workers', String(options.workers));
  if (options.preset === 'webrtc') {
    if (options.links.join('|') !== WEBRTC_DEFAULT_LINKS.join('|')) for (const link of options.links) words.push('--link', shellWord(link));
    if (options.durationS !== undefined) words.push('--duration', String(options.durationS));
    if (options.fps !== COMPARE_DEFAULTS.fps) words.push('--fps', String(options.fps));
    if (options.linkPath !== undefined) words.push('--link-path', options.linkPath);
  }
  if (options.preset === 'engine') {
    if (options.maxBatch !== 4) words.push('--max-batch', String(options.maxBatch));
    if (options.remoteWorkers !== options.workers) words.push('--remote-workers', String(options.remoteWorkers));
    if (options.tritonMaxBatch !== 8) words.push('--triton-max-batch', String(options.tritonMaxBatch));
    if (options.queueDelayUs !== 0) words.push('--queue-delay-us', String(options.queueDelayUs));
  }
  return words.join(' ');
}

function cellsSentence(cells: readonly CellSpec[], scale: number): string {
  return cells
    .map((c) => {
      const [flag, value] = lengthArgv(c, scale);
      return `${c.title}: ${flag === '--frames' ? `${value} frames` : `${value} s`} a half`;
    })
    .join('; ');
}

/** Where and when the run happened, and warnings about it (a scaled run, a busy machine). */
export function contextLines(r: Pick<CompareReport, 'context' | 'options'>): string[] {
  const { context: c, options: o } = r;
  const busy = Math.max(c.loadBefore, c.loadAfter) > 1.5 * c.cores;
  return [
    `- Date: ${c.date}`,
    `- CPU: ${c.cpu}, ${c.cores} cores available, ${c.ramGiB.toFixed(1)} GiB RAM; Node ${c.node}`,
    `- Every server: ${o.threads} intra-op thread(s); gateways: ${o.workers} inference worker(s); all on loopback with the client.`,
    `- 1-minute load average before / after the run: ${c.loadBefore.toFixed(2)} / ${c.loadAfter.toFixed(2)} (on ${c.cores} cores)`,
    ...(o.scale !== 1 ? ['', `**Scaled run (--scale ${o.scale}): shorter halves, noisier numbers.**`] : []),
    ...(busy
      ? [
          '',
          `**Warning: the machine was busy (load average up to ${Math.max(c.loadBefore, c.loadAfter).toFixed(1)} on ${c.cores} cores): ` +
            'absolute figures are inflated by other processes; the interleaved ratios are more robust. Re-run on a quiet machine.**',
        ]
      : []),
  ];
}

const COLUMNS_NOTE = [
  'Latency is full process (client encode to decoded reply) of the frames answered with detections, in ms; detected',
  'frames/s are those frames over the measured wall time. *Refused overloaded*: frames a server shed because it was',
  'full (`dropped`/`overloaded` past its latency budget, `error`/`overloaded` past its pending limit); *held*: refusals',
  'carrying `retryAfterMs`, after which the stop-and-wait client waited that long before its next frame.',
];

/** Protocol 2 added `retryAfterMs`: an older client neither reads it nor waits. */
const RETRY_AFTER_PROTOCOL = 2;

/** Which client drove which server, and what an older one does not do. */
export function clientSentence(r: Pick<CompareReport, 'servers' | 'clients'>): string {
  const descriptions = [...new Set(r.clients.map((c) => c.description))];
  const who =
    descriptions.length === 1
      ? `Every server driven by ${descriptions[0]}.`
      : `Each driven by its own checkout's client: ${r.servers.map((s, i) => `*${s.name}* by ${r.clients[i]!.description}`).join('; ')}.`;
  const older = r.servers.filter((_, i) => r.clients[i]!.protocol < RETRY_AFTER_PROTOCOL).map((s) => `*${s.name}*`);
  return older.length
    ? `${who} The client of ${older.join(', ')} predates \`retryAfterMs\`: after a refusal it sends its next frame at once, and *held* stays 0.`
    : who;
}

function abIntro(r: CompareReport, cells: readonly CellSpec[]): string[] {
  const { options: o, context: c } = r;
  return [
    '## A/B of a gateway change',
    '',
    `Generated by \`${invocation(o)}\` (bench/compare/main.ts) in ${c.minutes.toFixed(1)} minutes; every number comes from`,
    'this one run. Two gateways as child processes with the same settings, on free loopback ports: *before* from',
    `\`${o.before}\` (${c.checkouts?.before ?? 'unknown commit'}) and *after* from this checkout's \`gateway/\` (${c.checkouts?.after ?? 'unknown commit'}).`,
    `Stop-and-wait clients, each its own WebSocket, MessagePack, 640x480 JPEG (the fixture photos, quality 80); ${cellsSentence(cells, o.scale)}.`,
    `Every cell ran in ${o.repeats} halves per server, round-robin over the servers (before, after, before, after, ...), the`,
    "halves' samples pooled; both gateways stayed up throughout, idle when not measured.",
    clientSentence(r),
  ];
}

function engineIntro(r: CompareReport, cells: readonly CellSpec[]): string[] {
  const { options: o, context: c } = r;
  return [
    '## Serving engine: local inference vs Triton, batching, and the OpenCV peer',
    '',
    `Generated by \`${invocation(o)}\` (bench/compare/main.ts) in ${c.minutes.toFixed(1)} minutes; every number comes from`,
    'this one run. Five servers as child processes on free loopback ports, all up throughout (idle when not measured):',
    `the gateway inferring in its own workers with \`SIGHTLINE_MAX_BATCH\` 1 and ${o.maxBatch}; the gateway with`,
    '`SIGHTLINE_INFERENCE_URL` on a real Triton of its own (deploy/triton/serve.py, CPU, same model and threads), once with',
    `dynamic batching (up to ${o.tritonMaxBatch} frames a run, at most ${o.queueDelayUs} µs of waiting for company) and once with batching off`,
    '(max batch 1); and the FastAPI + OpenCV peer (bench/baselines/fastapi). The gateway never batches a remote model itself',
    '(its runner takes one frame a run), so the remote rows run with `SIGHTLINE_MAX_BATCH` 1 and only Triton merges frames:',
    `at most as many as the gateway has workers (${o.remoteWorkers} there), each with one request at Triton at a time.`,
    `Stop-and-wait clients, each its own WebSocket, MessagePack, 640x480 JPEG (the fixture photos, quality 80); ${cellsSentence(cells, o.scale)}.`,
    `Every cell ran in ${o.repeats} halves per server, round-robin over the servers, the halves' samples pooled.`,
    clientSentence(r),
  ];
}

const ENGINE_NOTE = [
  "The engine's share, from Triton's own counters (`/metrics`, read before and after each half; warm-up frames",
  'included): *in engine* is the mean time a request spent inside Triton (its queue, then the run, inputs and',
  "outputs copied); *frames per run* how many frames the dynamic batcher merged; the gateway's `inferenceMs` of a",
  'remote frame is the whole round trip, so *hop* (round trip minus in engine) is what the HTTP hop costs: the',
  'request and its 1 MB tensor both ways, parsing, scheduling across processes.',
];

export function compareSection(r: CompareReport): string {
  const cells = r.cells ?? CELLS;
  const engine = r.options.preset === 'engine';
  const engineRows = engine ? engineTable(r.servers, cells) : '';
  return [
    ...(engine ? engineIntro(r, cells) : abIntro(r, cells)),
    '',
    ...contextLines(r),
    '',
    ...(r.notMeasured ?? []).flatMap((n) => [`**Not measured:** ${n}.`, '']),
    measureTable(r.servers, cells),
    '',
    ...COLUMNS_NOTE,
    '',
    ...(engine ? engineLines(r.servers) : abLines(r.servers)),
    ...(engineRows ? ['', ...ENGINE_NOTE, '', engineRows] : []),
    '',
    '<details><summary>Exact commands (the comparison runs these in process against the servers it started)</summary>',
    '',
    '```sh',
    ...r.setup,
    ...r.commands,
    '```',
    '',
    '</details>',
    ...(r.unanswered ? ['', `**Warning: ${r.unanswered} frame(s) went unanswered during this run.**`] : []),
    ...(r.failures.length ? ['', `**Warning: clients failed during this run: ${r.failures.join('; ')}.**`] : []),
  ].join('\n');
}
