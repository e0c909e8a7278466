/**
 * Command line of `pnpm bench:compare`: which preset, how many interleaved halves, how long each, and the
 * settings of the servers it starts. Never exits the process: bad input throws {@link CompareArgsError},
 * --help throws {@link CompareHelpShown} after commander printed it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { parseLinkSpec } from '@sightline/shared/link';
import { runsDoc } from '../doc-section.ts';
import { type CliOutput, parseWithoutExit, SILENT_OUTPUT } from '../client/parse-without-exit.ts';
import { callerPath } from '../reliability/scenario-options.ts';

export const PRESETS = ['ab', 'engine', 'naive', 'webrtc'] as const;
export type Preset = (typeof PRESETS)[number];

/** --client: which checkout's benchmark client drives the older gateway of an A/B (bench-client.ts). */
export const CLIENT_MODES = ['same', 'own'] as const;
export type ClientMode = (typeof CLIENT_MODES)[number];

export interface CompareOptions {
  preset: Preset;
  /** ab: the `gateway/` folder of the older checkout (the "before" server); naive: optional, the same. */
  before: string | undefined;
  /** ab, naive with --before: one client for both gateways (`same`), or each its own checkout's (`own`); bench-client.ts. */
  client: ClientMode;
  /** Halves every cell runs in, per server. */
  repeats: number;
  /** Frames and seconds of every half are multiplied by this (0.05: a smoke run). */
  scale: number;
  /** onnxruntime intra-op threads of every server (SIGHTLINE_THREADS, the peer's --threads, Triton's --threads). */
  threads: number;
  /** Gateway inference workers (SIGHTLINE_WORKERS). */
  workers: number;
  /** engine: SIGHTLINE_MAX_BATCH of the batching local gateway. */
  maxBatch: number;
  /**
   * engine: SIGHTLINE_WORKERS of the remote rows' gateways: each worker has one request at Triton at a time,
   * so this bounds what Triton's batcher can merge (default: --workers).
   */
  remoteWorkers: number;
  /** engine: Triton's dynamic batcher limit on the batching remote row. */
  tritonMaxBatch: number;
  /** engine: Triton's longest wait for a batch to fill, µs. */
  queueDelayUs: number;
  /** naive: busy loops running beside the servers in the busy cells (0: idle cells only). */
  hog: number;
  /** naive: where the frames the Python client sends are written (kept); undefined: a temporary folder, removed after. */
  framesDir?: string | undefined;
  /** webrtc: the links every row is measured on (link specs; `none` is loopback). */
  links: string[];
  /** webrtc: a long run of this many seconds per video-track row instead of the cells (latency per minute). */
  durationS: number | undefined;
  /** webrtc: the camera's frame rate. */
  fps: number;
  /** webrtc: how a link is put on the UDP path; undefined: the packet path as root, else the relay. */
  linkPath: 'packet' | 'relay' | undefined;
  /** Replace the preset's section of `out` (otherwise the block is only printed). */
  write: boolean;
  /** The file --write updates; default the preset's full-run file, docs/runs/<preset>.md. */
  out: string;
}

/** webrtc: loopback, two mobile links and one with loss (a link spec's commas are its own: one --link each). */
export const WEBRTC_DEFAULT_LINKS: readonly string[] = ['none', 'lte', '3g', 'lte,loss=2%'];
export const LINK_PATHS = ['packet', 'relay'] as const;

export const COMPARE_DEFAULTS = {
  repeats: 2,
  scale: 1,
  threads: 2,
  workers: 2,
  maxBatch: 4,
  tritonMaxBatch: 8,
  queueDelayUs: 0,
  hog: 2,
  fps: 30,
  links: [...WEBRTC_DEFAULT_LINKS],
  durationS: undefined as number | undefined,
  linkPath: undefined as CompareOptions['linkPath'],
};

/** Bounds that keep every run finite: at most 20 halves of at most 10x the default length. */
const MAX_REPEATS = 20;
const MAX_SCALE = 10;

export class CompareArgsError extends Error {
  override name = 'CompareArgsError';
}

export class CompareHelpShown extends Error {
  override name = 'CompareHelpShown';
}

function integer(min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\s*\d+\s*$/.test(value) || n < min || n > max) throw new InvalidArgumentError(`an integer from ${min} to ${max}.`);
    return n;
  };
}

function linkSpec(value: string, previous: string[] | undefined): string[] {
  try {
    parseLinkSpec(value);
  } catch (error) {
    throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
  }
  return [...(previous ?? []), value];
}

function scaleOf(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0 || n > MAX_SCALE)
    throw new InvalidArgumentError(`a number above 0, at most ${MAX_SCALE}.`);
  return n;
}

function buildProgram(): Command {
  return new Command('pnpm bench:compare')
    .description(
      'Measures several servers on the same work, interleaved, in one run: 1 and 6 stop-and-wait clients, 640x480 JPEG, ' +
        'MessagePack over WebSocket (naive: also the plain Python client sending raw JPEGs, idle and beside busy loops). ' +
        'Prints a markdown table (--write puts it into docs/runs/<preset>.md).',
    )
    .addOption(
      new Option(
        '--preset <name>',
        "ab: this checkout's gateway against --before; engine: local vs Triton, batching, and the OpenCV peer; naive: naive stop-and-wait clients (the bench client ignoring retryAfterMs, and a Python websockets client) on the gateway (and --before) and the OpenCV peer, idle and with --hog busy loops",
      )
        .choices(PRESETS)
        .makeOptionMandatory(),
    )
    .addOption(
      new Option('--before <dir>', "ab (and optionally naive): the older checkout's gateway/ folder (e.g. a git worktree, installed)"),
    )
    .addOption(
      new Option(
        '--client <which>',
        "ab: same: one benchmark client drives both gateways (this checkout's, or the older one's when the older gateway does not serve this protocol version); own: each gateway its own checkout's client",
      )
        .choices(CLIENT_MODES)
        .default('same'),
    )
    .addOption(
      new Option('--repeats <n>', `halves every cell runs in per server, round-robin over the servers (at most ${MAX_REPEATS})`)
        .default(COMPARE_DEFAULTS.repeats)
        .argParser(integer(1, MAX_REPEATS)),
    )
    .addOption(
      new Option('--scale <x>', 'multiplies the frames and seconds of every half (0.05: a smoke run)')
        .default(COMPARE_DEFAULTS.scale)
        .argParser(scaleOf),
    )
    .addOption(
      new Option('--threads <n>', 'onnxruntime intra-op threads of every server')
        .default(COMPARE_DEFAULTS.threads)
        .argParser(integer(1, 256)),
    )
    .addOption(
      new Option('--workers <n>', 'gateway inference workers (SIGHTLINE_WORKERS)')
        .default(COMPARE_DEFAULTS.workers)
        .argParser(integer(1, 256)),
    )
    .addOption(
      new Option('--max-batch <n>', 'engine: SIGHTLINE_MAX_BATCH of the batching local gateway')
        .default(COMPARE_DEFAULTS.maxBatch)
        .argParser(integer(2, 64)),
    )
    .addOption(
      new Option(
        '--remote-workers <n>',
        'engine: SIGHTLINE_WORKERS of the gateways in front of Triton; each has one request at Triton at a time, which bounds what Triton can batch (default: --workers)',
      ).argParser(integer(1, 256)),
    )
    .addOption(
      new Option('--triton-max-batch <n>', "engine: Triton's dynamic batching limit on the batching remote row")
        .default(COMPARE_DEFAULTS.tritonMaxBatch)
        .argParser(integer(2, 64)),
    )
    .addOption(
      new Option('--queue-delay-us <us>', "engine: Triton's longest wait for a batch to fill, microseconds")
        .default(COMPARE_DEFAULTS.queueDelayUs)
        .argParser(integer(0, 1_000_000)),
    )
    .addOption(
      new Option('--hog <n>', "naive: busy loops (node -e 'for(;;){}') running during the busy cells; 0 runs the idle cells only")
        .default(COMPARE_DEFAULTS.hog)
        .argParser(integer(0, 64)),
    )
    .addOption(
      new Option('--frames-dir <dir>', 'naive: write the frames the Python client sends here and keep them (default: a temporary folder)'),
    )
    .addOption(
      new Option(
        '--link <spec>',
        `webrtc: a link to measure on, e.g. lte, 3g, 'lte,loss=2%' (repeat for more; none is loopback; default: ${WEBRTC_DEFAULT_LINKS.join(' / ')})`,
      ).argParser(linkSpec),
    )
    .addOption(
      new Option(
        '--duration <s>',
        "webrtc: instead of the cells, a long run of each video-track row (Sightline's, the peer's in both modes) for this many seconds, latency per minute",
      ).argParser(integer(10, 24 * 3600)),
    )
    .addOption(
      new Option('--fps <n>', 'webrtc: the camera frame rate of every row').default(COMPARE_DEFAULTS.fps).argParser(integer(1, 120)),
    )
    .addOption(
      new Option(
        '--link-path <path>',
        'webrtc: packet: the servers run inside a network namespace behind the packet link (root); relay: they stay on loopback and a user-space UDP relay carries the link (default: packet as root, else relay)',
      ).choices(LINK_PATHS),
    )
    .option(
      '--write',
      "replace the preset's section of --out (between <!-- ab:begin --> / <!-- engine:begin --> / <!-- naive:begin --> / <!-- webrtc:begin --> (webrtc-long with --duration) and its end marker)",
    )
    .addOption(new Option('--out <file>', 'markdown file --write updates (default: docs/runs/<preset>.md)'))
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  pnpm bench:compare --preset ab --before /tmp/before/gateway        # git worktree add /tmp/before <commit> && (cd /tmp/before && pnpm install)',
        '  pnpm bench:compare --preset engine --repeats 4 --write',
        '  pnpm bench:compare --preset engine --scale 0.05                     # a smoke run, under a minute',
        '  pnpm bench:compare --preset naive --before /tmp/before/gateway --write   # naive clients, idle and beside 2 busy loops',
        '  pnpm bench:compare --preset naive --scale 0.05 --hog 2               # a smoke run',
        '  sudo pnpm bench:compare --preset webrtc --write                       # WebRTC paths on loopback, lte, 3g, lte with 2% loss',
        "  pnpm bench:compare --preset webrtc --link none --link 'lte,loss=2%' --scale 0.2 --link-path relay",
        '  sudo pnpm bench:compare --preset webrtc --duration 300 --write        # the long run: latency per minute',
      ].join('\n'),
    )
    .allowExcessArguments(false);
}

const ENGINE_ONLY = ['maxBatch', 'remoteWorkers', 'tritonMaxBatch', 'queueDelayUs'] as const;
const FLAG: Record<(typeof ENGINE_ONLY)[number], string> = {
  maxBatch: '--max-batch',
  remoteWorkers: '--remote-workers',
  tritonMaxBatch: '--triton-max-batch',
  queueDelayUs: '--queue-delay-us',
};

export function parseCompareArgs(argv: readonly string[], output: CliOutput = SILENT_OUTPUT): CompareOptions {
  const program = buildProgram();
  parseWithoutExit(program, argv, output, {
    helpShown: (text) => new CompareHelpShown(text),
    badArguments: (message) => new CompareArgsError(message),
  });
  const o = program.opts<
    Omit<CompareOptions, 'write' | 'out' | 'before' | 'remoteWorkers' | 'framesDir' | 'links' | 'durationS' | 'linkPath'> & {
      write?: boolean;
      out?: string;
      before?: string;
      remoteWorkers?: number;
      framesDir?: string;
      link?: string[];
      duration?: number;
      linkPath?: 'packet' | 'relay';
    }
  >();
  const given = (key: string) => program.getOptionValueSource(key) === 'cli';
  const problems: string[] = [];
  let before: string | undefined;
  if (o.preset === 'ab' && o.before === undefined)
    problems.push('--preset ab needs --before <dir>: the gateway/ folder of the older checkout');
  if (o.before !== undefined) {
    if (o.preset === 'engine') problems.push('--before is for --preset ab or naive');
    before = callerPath(o.before);
    if (!existsSync(join(before, 'src', 'main.ts'))) problems.push(`--before ${o.before}: not a gateway package (no src/main.ts)`);
  }
  if (o.preset !== 'engine') for (const key of ENGINE_ONLY) if (given(key)) problems.push(`${FLAG[key]} is for --preset engine`);
  if (given('client') && before === undefined) problems.push('--client is for --preset ab (or naive with --before)');
  if (o.preset !== 'naive')
    for (const flag of ['hog', 'framesDir'] as const)
      if (given(flag)) problems.push(`--${flag === 'hog' ? 'hog' : 'frames-dir'} is for --preset naive`);
  if (o.preset !== 'webrtc')
    for (const [key, flag] of [
      ['link', '--link'],
      ['duration', '--duration'],
      ['fps', '--fps'],
      ['linkPath', '--link-path'],
    ] as const)
      if (given(key)) problems.push(`${flag} is for --preset webrtc`);
  if (o.preset === 'webrtc' && before !== undefined) problems.push('--before is for --preset ab or naive');
  if (problems.length) throw new CompareArgsError(problems.join('; '));
  const { link, duration, linkPath, ...rest } = o;
  return {
    ...rest,
    // A long run is minutes per row: on loopback unless links are named.
    links: link ?? (duration !== undefined ? ['none'] : [...WEBRTC_DEFAULT_LINKS]),
    durationS: duration,
    linkPath,
    out: o.out === undefined ? runsDoc(o.preset) : callerPath(o.out),
    before,
    remoteWorkers: o.remoteWorkers ?? o.workers,
    framesDir: o.framesDir === undefined ? undefined : callerPath(o.framesDir),
    write: o.write === true,
  };
}
