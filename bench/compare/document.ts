/**
 * The generated section of one comparison: what ran where, the tables, the ratios, and the exact commands.
 * Pure: everything measured or looked up is passed in, so the same run always gives the same text.
 */
import { commandLine, commandsBlock, contextLines, runWarnings, sectionHead, type RunContext } from '../report.ts';
import type { BenchClient } from './bench-client.ts';
import { CELLS, lengthArgv, type CellSpec } from './cells.ts';
import { COMPARE_DEFAULTS, PRESET_FLAGS, WEBRTC_DEFAULT_LINKS, type CompareOptions } from './options.ts';
import { abLines, engineLines } from './ratios.ts';
import { engineTable, measureTable, type ServerResults } from './tables.ts';

/** Where and when, and for an A/B the two checkouts, as `describeCheckout` puts them. */
export type CompareContext = RunContext & { checkouts?: { before: string; after: string } | undefined };

export interface CompareReport {
  options: CompareOptions;
  context: CompareContext;
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

/** The command that produced the section, as a reader would retype it: only the options that differ from their defaults. */
export function invocation(o: CompareOptions): string {
  const words = ['--preset', o.preset];
  const add = (flag: string, value: unknown, fallback: unknown) => {
    if (value !== undefined && value !== fallback) words.push(flag, String(value));
  };
  add('--before', o.before, undefined);
  if (o.before !== undefined) add('--client', o.client, 'same');
  add('--repeats', o.repeats, COMPARE_DEFAULTS.repeats);
  add('--scale', o.scale, COMPARE_DEFAULTS.scale);
  add('--threads', o.threads, COMPARE_DEFAULTS.threads);
  add('--workers', o.workers, COMPARE_DEFAULTS.workers);
  for (const { key, flag, presets } of PRESET_FLAGS) {
    if (key === 'before' || key === 'framesDir' || !presets.includes(o.preset)) continue;
    if (key !== 'links') add(flag, o[key], key === 'remoteWorkers' ? o.workers : (COMPARE_DEFAULTS as Record<string, unknown>)[key]);
    else if (o.links.join('|') !== WEBRTC_DEFAULT_LINKS.join('|')) for (const link of o.links) words.push('--link', link);
  }
  return commandLine('pnpm bench:compare', words);
}

function cellsSentence(cells: readonly CellSpec[], scale: number): string {
  return cells
    .map((c) => {
      const [flag, value] = lengthArgv(c, scale);
      return `${c.title}: ${flag === '--frames' ? `${value} frames` : `${value} s`} a half`;
    })
    .join('; ');
}

/** Where and when the run happened, what every server was given (`details`, by default the threads and workers), and a scaled run said. */
export function compareContext(r: Pick<CompareReport, 'context' | 'options'>, details?: readonly string[]): string[] {
  const o = r.options;
  return [
    contextLines(
      r.context,
      details ?? [
        `Every server: ${o.threads} intra-op thread(s); gateways: ${o.workers} inference worker(s); all on loopback with the client.`,
      ],
    ),
    ...(o.scale !== 1 ? ['', `**Scaled run (--scale ${o.scale}): shorter halves, noisier numbers.**`] : []),
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
    ...sectionHead('A/B of a gateway change', invocation(o), 'bench/compare/main.ts', c.minutes),
    'Two gateways as child processes with the same settings, on free loopback ports: *before* from',
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
    ...sectionHead(
      'Serving engine: local inference vs Triton, batching, and the OpenCV peer',
      invocation(o),
      'bench/compare/main.ts',
      c.minutes,
    ),
    'Five servers as child processes on free loopback ports, all up throughout (idle when not measured):',
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
    ...compareContext(r),
    '',
    ...(r.notMeasured ?? []).flatMap((n) => [`**Not measured:** ${n}.`, '']),
    measureTable(r.servers, cells),
    '',
    ...COLUMNS_NOTE,
    '',
    ...(engine ? engineLines(r.servers) : abLines(r.servers)),
    ...(engineRows ? ['', ...ENGINE_NOTE, '', engineRows] : []),
    '',
    commandsBlock([...r.setup, ...r.commands], 'the comparison runs these in process against the servers it started'),
    ...runWarnings(r.unanswered, r.failures),
  ].join('\n');
}
