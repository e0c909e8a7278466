/**
 * Command line of `pnpm bench:compare`: which preset, how many interleaved halves, how long each, and the
 * settings of the servers it starts. Never exits the process: bad input throws {@link CompareArgsError},
 * --help throws {@link CompareHelpShown} after commander printed it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { parseLinkSpec } from '@sightline/shared/link';
import { runsDoc } from '../report.ts';
import { type CliOutput, parseWithoutExit, SILENT_OUTPUT } from '../client/parse-without-exit.ts';
import { callerPath, integer } from '../cli.ts';

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
    .option('--before <dir>', "ab (and optionally naive): the older checkout's gateway/ folder (e.g. a git worktree, installed)")
    .addOption(
      new Option(
        '--client <which>',
        "ab: same: one benchmark client drives both gateways (this checkout's, or the older one's when the older gateway does not serve this protocol version); own: each gateway its own checkout's client",
      )
        .choices(CLIENT_MODES)
        .default('same'),
    )
    .option(
      '--repeats <n>',
      `halves every cell runs in per server, round-robin over the servers (at most ${MAX_REPEATS})`,
      integer(1, MAX_REPEATS),
      COMPARE_DEFAULTS.repeats,
    )
    .option('--scale <x>', 'multiplies the frames and seconds of every half (0.05: a smoke run)', scaleOf, COMPARE_DEFAULTS.scale)
    .option('--threads <n>', 'onnxruntime intra-op threads of every server', integer(1, 256), COMPARE_DEFAULTS.threads)
    .option('--workers <n>', 'gateway inference workers (SIGHTLINE_WORKERS)', integer(1, 256), COMPARE_DEFAULTS.workers)
    .option('--max-batch <n>', 'engine: SIGHTLINE_MAX_BATCH of the batching local gateway', integer(2, 64), COMPARE_DEFAULTS.maxBatch)
    .option(
      '--remote-workers <n>',
      'engine: SIGHTLINE_WORKERS of the gateways in front of Triton; each has one request at Triton at a time, which bounds what Triton can batch (default: --workers)',
      integer(1, 256),
    )
    .option(
      '--triton-max-batch <n>',
      "engine: Triton's dynamic batching limit on the batching remote row",
      integer(2, 64),
      COMPARE_DEFAULTS.tritonMaxBatch,
    )
    .option(
      '--queue-delay-us <us>',
      "engine: Triton's longest wait for a batch to fill, microseconds",
      integer(0, 1_000_000),
      COMPARE_DEFAULTS.queueDelayUs,
    )
    .option(
      '--hog <n>',
      "naive: busy loops (node -e 'for(;;){}') running during the busy cells; 0 runs the idle cells only",
      integer(0, 64),
      COMPARE_DEFAULTS.hog,
    )
    .option('--frames-dir <dir>', 'naive: write the frames the Python client sends here and keep them (default: a temporary folder)')
    .option(
      '--link <spec>',
      `webrtc: a link to measure on, e.g. lte, 3g, 'lte,loss=2%' (repeat for more; none is loopback; default: ${WEBRTC_DEFAULT_LINKS.join(' / ')})`,
      linkSpec,
    )
    .option(
      '--duration <s>',
      "webrtc: instead of the cells, a long run of each video-track row (Sightline's, the peer's in both modes) for this many seconds, latency per minute",
      integer(10, 24 * 3600),
    )
    .option('--fps <n>', 'webrtc: the camera frame rate of every row', integer(1, 120), COMPARE_DEFAULTS.fps)
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
    .option('--out <file>', 'markdown file --write updates (default: docs/runs/<preset>.md)')
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

/**
 * The options only some presets take, as data: given to another preset an option is refused, naming the presets it
 * is for; the section's command line names it when it differs from its default.
 */
export const PRESET_FLAGS: ReadonlyArray<{ key: keyof CompareOptions; flag: string; presets: readonly Preset[] }> = [
  { key: 'before', flag: '--before', presets: ['ab', 'naive'] },
  { key: 'hog', flag: '--hog', presets: ['naive'] },
  { key: 'framesDir', flag: '--frames-dir', presets: ['naive'] },
  { key: 'links', flag: '--link', presets: ['webrtc'] },
  { key: 'durationS', flag: '--duration', presets: ['webrtc'] },
  { key: 'fps', flag: '--fps', presets: ['webrtc'] },
  { key: 'linkPath', flag: '--link-path', presets: ['webrtc'] },
  { key: 'maxBatch', flag: '--max-batch', presets: ['engine'] },
  { key: 'remoteWorkers', flag: '--remote-workers', presets: ['engine'] },
  { key: 'tritonMaxBatch', flag: '--triton-max-batch', presets: ['engine'] },
  { key: 'queueDelayUs', flag: '--queue-delay-us', presets: ['engine'] },
];

/** commander's name of an option's value, where it differs from the option's key. */
const OPTION_NAME: Partial<Record<keyof CompareOptions, string>> = { links: 'link', durationS: 'duration' };

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
  for (const { key, flag, presets } of PRESET_FLAGS)
    if (!presets.includes(o.preset) && given(OPTION_NAME[key] ?? key)) problems.push(`${flag} is for --preset ${presets.join(' or ')}`);
  if (o.preset === 'ab' && o.before === undefined)
    problems.push('--preset ab needs --before <dir>: the gateway/ folder of the older checkout');
  const before = o.before === undefined ? undefined : callerPath(o.before);
  if (before !== undefined && !existsSync(join(before, 'src', 'main.ts')))
    problems.push(`--before ${o.before}: not a gateway package (no src/main.ts)`);
  if (given('client') && before === undefined) problems.push('--client is for --preset ab (or naive with --before)');
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
