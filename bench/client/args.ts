/**
 * Command line of the benchmark client: every flag, its help text, and validation into a typed config.
 * `parseArgs` never exits the process: it throws {@link ArgsError} (bad input) or {@link HelpShown}.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import {
  formatLinkSpec,
  isTransparent,
  LINK_PRESET_NAMES,
  parseLinkSpec,
  streamLimitations,
  type LinkProfile,
} from '@sightline/shared/link';
import { VIDEO_CODECS, type VideoCodec } from '@sightline/shared/protocol';
import { integer } from '../cli.ts';
import { packetLinkUnavailable as packetPathUnavailable } from '../link/packet/packet-link.ts';
import { type CliOutput, parseWithoutExit, SILENT_OUTPUT } from './parse-without-exit.ts';

export const TRANSPORTS = ['ws', 'rest', 'rest-keepalive'] as const;
/** Image codecs: how one image per frame travels (REST takes these only). */
export const IMAGE_CODECS = ['json', 'msgpack', 'raw'] as const;
/** Video codecs: the frames encoded as one video stream, each frame a `chunk` message (WebSocket, MessagePack). */
export const CLIENT_VIDEO_CODECS = VIDEO_CODECS;
export const CLIENT_CODECS = [...IMAGE_CODECS, ...CLIENT_VIDEO_CODECS] as const;
export const MODES = ['serial', 'pipelined', 'short'] as const;
/** Which emulation carries --link: auto = the byte-stream proxy, or the packet path when the link loses packets. */
export const LINK_PATHS = ['auto', 'proxy', 'packet'] as const;

export type Transport = (typeof TRANSPORTS)[number];
export type ImageCodec = (typeof IMAGE_CODECS)[number];
export type ClientCodec = (typeof CLIENT_CODECS)[number];
export type Mode = (typeof MODES)[number];
export type LinkPathChoice = (typeof LINK_PATHS)[number];

export function isVideoCodec(codec: string): codec is VideoCodec {
  return (VIDEO_CODECS as readonly string[]).includes(codec);
}

/** How --codec vp8 (and the other video codecs) encodes the frames, once, before the run. */
export interface VideoEncoding {
  codec: VideoCodec;
  bitrateKbps: number;
  /** Frames from one keyframe to the next (the first frame is always one). */
  keyframeInterval: number;
}

export type InputSource =
  | { kind: 'image'; path: string }
  | { kind: 'dir'; path: string }
  | { kind: 'video'; path: string; maxFrames: number }
  /** --clip: the fixture photos as a moving clip (panned and zoomed, 25 fps), made by ffmpeg before the run. */
  | { kind: 'clip'; maxFrames: number | undefined }
  /** No input flag: the committed fixture photos (shared/fixtures/photos). */
  | { kind: 'default' };

export interface BenchConfig {
  /** Gateway base URL, http://host:port (a ws:// URL is accepted and converted). */
  url: string;
  transport: Transport;
  codec: ClientCodec;
  mode: Mode;
  /** Frames in flight per connection: K for pipelined, 1 otherwise (open-loop: as many as the schedule sends). */
  inFlight: number;
  /**
   * Open loop: frames per second per client, sent on a fixed schedule whatever the answers (a camera does
   * not wait); latency counts from each frame's scheduled send time. Undefined: closed loop (--mode).
   */
  rateFps: number | undefined;
  clients: number;
  staggerMs: number;
  /** Frames per client per repeat; undefined when --duration is used. */
  frames: number | undefined;
  /** Seconds per client per repeat; undefined when --frames is used. */
  durationS: number | undefined;
  repeats: number;
  warmup: number;
  input: InputSource;
  resize: { width: number; height: number } | undefined;
  quality: number | undefined;
  /** Video codecs: how the frames are encoded as a stream; undefined for image codecs. */
  video: VideoEncoding | undefined;
  model: string | undefined;
  threshold: number | undefined;
  /**
   * The emulated link between client and gateway (the user-space TCP proxy applies it to every transport);
   * undefined: none. --delay / --bandwidth are shorthands for a custom link.
   */
  link: LinkProfile | undefined;
  /**
   * What carries the link: the byte-stream proxy (no root; no loss), or the packet path (root; real TCP
   * segments through a network namespace, lost and retransmitted). Undefined without a link.
   */
  linkPath: 'proxy' | 'packet' | undefined;
  /** Seed of the link's jitter draws; undefined: a fresh one, reported in the summary. */
  linkSeed: number | undefined;
  /** WS: ms between pings during the measured phase; 0 = only the probes before it. */
  pingIntervalMs: number;
  timeoutMs: number;
  /** WS: wait as long as a refusal's retryAfterMs says (false: --ignore-retry-after). */
  honourRetryAfter: boolean;
  csv: string | undefined;
  json: boolean;
  chart: string | undefined;
  label: string | undefined;
  quiet: boolean;
  /** Access token, sent as `Authorization: Bearer` (--token, or SIGHTLINE_TOKEN). */
  token: string | undefined;
  /** PEM file of the certificate to trust for an https:// gateway (--ca). */
  caFile: string | undefined;
  /** https:// without verifying the gateway's certificate (--insecure). */
  insecure: boolean;
}

export class ArgsError extends Error {
  override name = 'ArgsError';
}

/** Thrown after commander printed --help or --version output; the caller should exit 0. */
export class HelpShown extends Error {
  override name = 'HelpShown';
}

/** The variable the gateway reads its token from; the client reads the same one. */
export const TOKEN_ENV = 'SIGHTLINE_TOKEN';
/** What can go into an Authorization header unquoted (RFC 6750 b64token, and more). */
const TOKEN_PATTERN = /^[\x21-\x7e]+$/;

export const DEFAULTS = {
  url: 'http://localhost:8080',
  transport: 'ws' as Transport,
  codec: 'msgpack' as ClientCodec,
  mode: 'serial' as Mode,
  inFlight: 4,
  clients: 1,
  staggerMs: 0,
  frames: 100,
  repeats: 1,
  warmup: 3,
  pingIntervalMs: 1000,
  timeoutMs: 30_000,
  videoFrames: 100,
  quality: 80,
  /** kbit/s; the dashboard's default too (`?bitrate=1000`). */
  bitrateKbps: 1000,
  /** 3 s at 25 fps: "every few seconds", as a browser's encoder is asked to. */
  keyframeInterval: 75,
};

function linkSpec(value: string): LinkProfile {
  try {
    return parseLinkSpec(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

function decimal(min: number, max = Number.POSITIVE_INFINITY, exclusiveMin = false) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError('not a number.');
    if (n < min || n > max || (exclusiveMin && n === min)) {
      throw new InvalidArgumentError(
        `must be ${exclusiveMin ? 'greater than' : 'at least'} ${min}${Number.isFinite(max) ? ` and at most ${max}` : ''}.`,
      );
    }
    return n;
  };
}

function size(value: string): { width: number; height: number } {
  const match = /^(\d+)x(\d+)$/i.exec(value.trim());
  if (!match) throw new InvalidArgumentError('expected WIDTHxHEIGHT, e.g. 240x180.');
  const width = Number(match[1]);
  const height = Number(match[2]);
  if (width < 1 || height < 1 || width > 16384 || height > 16384) throw new InvalidArgumentError('width and height must be 1..16384.');
  return { width, height };
}

function baseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('not a URL (expected e.g. http://localhost:8080).');
  }
  if (url.protocol === 'ws:') url.protocol = 'http:';
  else if (url.protocol === 'wss:') url.protocol = 'https:';
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidArgumentError('must be http://, https://, ws:// or wss://.');
  if (url.search || url.hash) throw new InvalidArgumentError('give the base URL only, without query or fragment.');
  return url.origin + url.pathname.replace(/\/+$/, '');
}

/** The commander program; exported so main.ts and tests share one definition. */
export function buildProgram(): Command {
  return new Command('pnpm bench')
    .description(
      'Sightline benchmark client: sends image frames to a gateway over WebSocket or HTTP and reports ' +
        'full-process latency, network-only latency, server/inference time, throughput and bytes per frame.',
    )
    .option('--url <url>', 'gateway base URL (ws:// is accepted too)', baseUrl, DEFAULTS.url)
    .addOption(
      new Option(
        '--transport <transport>',
        'ws = one WebSocket per client; rest = POST /api/detect on a NEW TCP connection per request ' +
          '(keep-alive off, Connection: close); rest-keepalive = one keep-alive connection per client (maxSockets 1)',
      )
        .choices(TRANSPORTS)
        .default(DEFAULTS.transport),
    )
    .addOption(
      new Option(
        '--codec <codec>',
        'json = JSON with the image as Base64 (WS text); msgpack = MessagePack with the image as bin ' +
          '(WS binary; REST Content-Type and Accept application/msgpack); raw = REST only, the image bytes as the body; ' +
          'vp8, vp9, h264, av1 = video (WS only): the frames encoded once before the run as one stream by the ' +
          "gateway's ffmpeg, as a browser's realtime encoder would (no B-frames, --keyframe-interval, --bitrate), each " +
          'frame one `chunk` message (MessagePack), sent in order',
      )
        .choices(CLIENT_CODECS)
        .default(DEFAULTS.codec),
    )
    .option('--bitrate <kbps>', `video codecs: target bitrate in kbit/s (default ${DEFAULTS.bitrateKbps})`, integer(10, 100_000))
    .option(
      '--keyframe-interval <n>',
      `video codecs: frames from one keyframe to the next (default ${DEFAULTS.keyframeInterval}; the first frame is always one)`,
      integer(1, 10_000),
    )
    .addOption(
      new Option(
        '--mode <mode>',
        'serial = one frame in flight, send the next when the answer arrives; pipelined = --in-flight K frames ' +
          'in flight on one connection (the gateway processes 2 and queues 2 per connection, newest wins, so K > 4 ' +
          'produces `dropped` answers, which are counted); short = a new WebSocket per frame: open, one frame, close ' +
          '(WS only; run --clients N of them in parallel)',
      )
        .choices(MODES)
        .default(DEFAULTS.mode),
    )
    .option('--in-flight <k>', 'frames in flight per connection in pipelined mode', integer(1, 1024))
    .option(
      '--rate <fps>',
      'open loop: each client sends FPS frames per second on one persistent WebSocket on a fixed schedule ' +
        '(frame i at start + i/FPS, like a camera), never waiting for answers; latency counts from the scheduled ' +
        'send time, so a stalled gateway cannot hide its stalls (coordinated omission). Replaces --mode',
      decimal(0, 1000, true),
    )
    .option('--clients <n>', 'concurrent clients, each with its own connection(s)', integer(1, 1000), DEFAULTS.clients)
    .option('--stagger <ms>', 'start client i at i x MS after the measured phase begins (0 = all together)', decimal(0), DEFAULTS.staggerMs)
    .option('--frames <f>', `frames per client per repeat (default ${DEFAULTS.frames}; exclusive with --duration)`, integer(1))
    .option(
      '--duration <s>',
      'seconds each client sends frames per repeat, instead of --frames',
      decimal(0, Number.POSITIVE_INFINITY, true),
    )
    .option('--repeats <r>', 'repeat the whole run R times (fresh connections each time)', integer(1, 1000), DEFAULTS.repeats)
    .option(
      '--warmup <w>',
      "frames per client sent before each repeat's measured phase and discarded from the statistics",
      integer(0),
      DEFAULTS.warmup,
    )
    .option('--image <file>', 'send this image (JPEG, PNG or WebP) for every frame')
    .option('--dir <dir>', 'send the JPEG/PNG/WebP images of this folder, in name order, cycling')
    .option(
      '--video <file>',
      'send frames of this video: .y4m is decoded natively, anything else needs ffmpeg on PATH ' +
        '(apt-get install -y ffmpeg); frames are JPEG-encoded once before the run',
    )
    .option(
      '--clip',
      'send fixture photos as a moving clip (six photos, each panned and zoomed for 2 s at 25 fps, 640x480 or --resize), ' +
        "made by the gateway's ffmpeg before the run: the same frames as JPEG or, with a video codec, as video",
    )
    .option(
      '--video-frames <n>',
      `frames to take from --video (default ${DEFAULTS.videoFrames}) or --clip (default: all)`,
      integer(1, 100_000),
    )
    .option('--resize <WxH>', 'resize (cover + centre crop) and re-encode every input as JPEG once before the run, e.g. 240x180', size)
    .option(
      '--quality <q>',
      `JPEG quality 1..100 for the re-encode (default ${DEFAULTS.quality} when --resize or --video is given)`,
      integer(1, 100),
    )
    .option('--model <name>', 'model to ask for (see GET /api/models); the gateway default when absent')
    .option('--threshold <0..1>', 'minimum detection score; the model default when absent', decimal(0, 1))
    .option(
      '--link <spec>',
      `put an emulated link between client and gateway: a preset (${LINK_PRESET_NAMES.join(', ')}) or a custom ` +
        'link such as bw=2mbit/10mbit,delay=40ms,jitter=5ms,queue=100ms (up/down; one-way delays), or a preset with ' +
        'overrides (lte,jitter=10ms). A user-space TCP proxy applies it to every transport (no root needed); new ' +
        'connections also pay one emulated handshake round trip before their first bytes. Loss needs the packet path ' +
        '(a byte stream cannot lose a segment: see --link-path). See docs: Link lab',
      linkSpec,
    )
    .addOption(
      new Option(
        '--link-path <path>',
        'what carries --link: proxy = the user-space TCP proxy (no root; rate, queue, delay, jitter; no loss); ' +
          'packet = real TCP segments through a network namespace and TUN devices, lost and retransmitted (root; the ' +
          'client reaches the gateway through a relay at the far end of the link); auto = packet when the link has loss, ' +
          'else proxy',
      )
        .choices(LINK_PATHS)
        .default('auto'),
    )
    .option('--link-seed <n>', "seed of the link's jitter draws, to replay a run (default: fresh, printed)", integer(0, 2 ** 32 - 1))
    .option(
      '--delay <ms>',
      'shorthand for --link delay=MSms: one-way delay added in EACH direction (round trip +2 x MS)',
      decimal(0, 10_000),
    )
    .option(
      '--bandwidth <kbps>',
      'shorthand for --link bw=KBPSkbit: caps each direction at this many kilobits/s',
      decimal(8, Number.POSITIVE_INFINITY),
    )
    .option(
      '--ping-interval <ms>',
      'WS serial/pipelined: ping every MS during the measured phase for network-only latency (3 pings are always ' +
        'sent before it; 0 = only those). REST reports TCP connect time and TTFB minus server time instead; ' +
        'short mode reports the connect + upgrade time',
      integer(0),
    )
    .option(
      '--ignore-retry-after',
      "WS: send as if the gateway's refusals carried no retryAfterMs (by default the next frame waits for it; an open-loop camera skips the frames due meanwhile)",
    )
    .option('--timeout <ms>', 'a frame without an answer after MS counts as unanswered', integer(1), DEFAULTS.timeoutMs)
    .option('--csv <file>', 'write every frame (warm-up frames flagged) to this CSV file')
    .option('--json', 'print a one-line JSON summary on stdout and nothing else there (the table goes to stderr unless --quiet)')
    .option('--chart <file>', 'write a latency chart (CDF and box plot per repeat): SVG, or PNG when the name ends in .png')
    .option('--label <text>', 'name of this run in the output, CSV and JSON')
    .option('--quiet', 'no table and no progress bar (errors still go to stderr)')
    .option(
      '--token <token>',
      `access token of a gateway that asks for one: sent as "Authorization: Bearer" on the WebSocket upgrade and on ` +
        `every HTTP request (default: $${TOKEN_ENV})`,
    )
    .option(
      '--ca <file>',
      'https:// gateways: trust this certificate (PEM), e.g. the self-signed one an exposed gateway keeps in ' +
        '$SIGHTLINE_DATA_DIR/tls/cert.pem (default: ~/.local/share/sightline/tls/cert.pem)',
    )
    .option('--insecure', 'https:// gateways: do not verify the certificate at all (warned on stderr; prefer --ca)')
    .addHelpText(
      'after',
      `
Exit status: 0 when every frame got an answer (detections, dropped or error), 1 when any frame went
unanswered (timeout or broken connection), 2 for bad arguments or inputs.

Throughput is completed frames (answered with detections) over the wall time of the measured phase.
Latency statistics cover answered-with-detections frames only; dropped and error answers are counted.
With --rate, latency runs from each frame's scheduled send time, and "send lag" shows how far the client
itself fell behind its schedule (a large lag means the client machine, not only the gateway, was busy).

Examples:
  pnpm bench --transport ws --codec msgpack --frames 200
  pnpm bench --transport rest --codec raw --resize 240x180 --delay 20 --frames 50
  pnpm bench --link lte --codec json --resize 640x480 --frames 50     # a preset: 40 ms RTT, 29.5/7.6 Mbit/s
  pnpm bench --link 'bw=2mbit/10mbit,delay=40ms,jitter=5ms,queue=100ms' --transport rest
  sudo pnpm bench --link lte,loss=1% --transport rest                 # loss: the packet path (root)
  pnpm bench --clip --codec vp8 --bitrate 1000 --link lte              # the moving clip as VP8 chunks
  pnpm bench --mode pipelined --in-flight 4 --duration 10 --csv out.csv --chart out.svg
  pnpm bench --mode short --clients 6 --frames 50 --json
  pnpm bench --rate 30 --clients 4 --duration 20 --resize 640x480   # open loop: 4 cameras at 30 fps
  pnpm bench --url https://192.168.1.23:8080 --token "$TOKEN" --ca ~/.local/share/sightline/tls/cert.pem`,
    )
    .allowExcessArguments(false)
    .showHelpAfterError('(run with --help for every flag)');
}

interface RawOptions {
  url: string;
  transport: Transport;
  codec: ClientCodec;
  mode: Mode;
  inFlight?: number;
  rate?: number;
  clients: number;
  stagger: number;
  frames?: number;
  duration?: number;
  repeats: number;
  warmup: number;
  image?: string;
  dir?: string;
  video?: string;
  clip?: boolean;
  videoFrames?: number;
  bitrate?: number;
  keyframeInterval?: number;
  resize?: { width: number; height: number };
  quality?: number;
  model?: string;
  threshold?: number;
  link?: LinkProfile;
  linkPath: LinkPathChoice;
  linkSeed?: number;
  delay?: number;
  bandwidth?: number;
  pingInterval?: number;
  timeout: number;
  ignoreRetryAfter?: boolean;
  csv?: string;
  json?: boolean;
  chart?: string;
  label?: string;
  quiet?: boolean;
  token?: string;
  ca?: string;
  insecure?: boolean;
}

/**
 * Parses argv (without node and script) into a config. Throws {@link ArgsError} with a readable message for
 * bad values and bad combinations, {@link HelpShown} after --help. `output` receives commander's own text.
 */
export function parseArgs(
  argv: readonly string[],
  output: CliOutput = SILENT_OUTPUT,
  options: {
    checkFiles?: boolean;
    /** Relative file paths (inputs, --csv, --chart, --ca) are resolved against this folder; default: as given. */
    baseDir?: string;
    /** Where SIGHTLINE_TOKEN is read; default: this process's environment. */
    env?: Readonly<Record<string, string | undefined>>;
    /** Why the packet path cannot run here (undefined: it can); default: asked of this machine. */
    packetPathUnavailable?: () => string | undefined;
  } = {},
): BenchConfig {
  const program = buildProgram();
  parseWithoutExit(program, argv, output, {
    helpShown: (text) => new HelpShown(text),
    badArguments: (message) => new ArgsError(message),
  });
  const o = program.opts<RawOptions>();
  if (options.baseDir !== undefined) {
    for (const key of ['image', 'dir', 'video', 'csv', 'chart', 'ca'] as const) {
      if (o[key] !== undefined) o[key] = resolve(options.baseDir, o[key]);
    }
  }
  const given = (name: string): boolean => program.getOptionValueSource(name) === 'cli';
  const problems: string[] = [];
  const isRest = o.transport !== 'ws';

  if (o.codec === 'raw' && !isRest)
    problems.push('--codec raw sends the image as an HTTP body: use it with --transport rest or rest-keepalive, not ws');
  if (isRest && o.mode !== 'serial') {
    problems.push(`--mode ${o.mode} is WebSocket-only; REST sends one request at a time per client (use --clients N for concurrency)`);
  }
  if (o.inFlight !== undefined && o.mode !== 'pipelined') problems.push('--in-flight applies to --mode pipelined only');
  if (o.rate !== undefined && isRest) problems.push('--rate sends on one persistent WebSocket per client: use it with --transport ws');
  if (o.rate !== undefined && given('mode')) problems.push(`--rate is its own (open-loop) mode: give either --rate or --mode ${o.mode}`);
  if (o.pingInterval !== undefined && (isRest || o.mode === 'short')) {
    problems.push(
      '--ping-interval applies to WebSocket serial/pipelined mode (REST reports connect time and TTFB, short mode the handshake time)',
    );
  }
  if (o.frames !== undefined && o.duration !== undefined) problems.push('give either --frames or --duration, not both');
  const inputFlags = (['image', 'dir', 'video', 'clip'] as const).filter((k) => o[k] !== undefined);
  if (inputFlags.length > 1) problems.push(`give one input: ${inputFlags.map((k) => `--${k}`).join(', ')} were given together`);
  if (o.videoFrames !== undefined && o.video === undefined && o.clip === undefined)
    problems.push('--video-frames applies to --video and --clip only');
  const video = isVideoCodec(o.codec);
  if (video) {
    if (isRest)
      problems.push(`--codec ${o.codec} sends video chunks over the WebSocket: REST takes one image per request (use --transport ws)`);
    if (o.mode === 'short')
      problems.push(`--codec ${o.codec} is one stream per connection: --mode short would start every frame anew (use serial or pipelined)`);
    if (o.quality !== undefined) problems.push(`--quality is the JPEG quality; a video codec's size is set by --bitrate`);
  } else {
    for (const flag of ['bitrate', 'keyframeInterval'] as const) {
      if (o[flag] !== undefined)
        problems.push(
          `--${flag === 'bitrate' ? 'bitrate' : 'keyframe-interval'} applies to the video codecs (${CLIENT_VIDEO_CODECS.join(', ')})`,
        );
    }
  }
  if (given('stagger') && o.clients === 1 && o.stagger > 0) problems.push('--stagger needs --clients > 1');
  const https = o.url.startsWith('https:');
  if (o.ca !== undefined && o.insecure) problems.push('give either --ca (trust this certificate) or --insecure (trust any), not both');
  for (const flag of ['ca', 'insecure'] as const) {
    if (o[flag] !== undefined && !https) problems.push(`--${flag} applies to https:// (or wss://) gateways; --url is ${o.url}`);
  }
  // An empty variable is no token: `SIGHTLINE_TOKEN= pnpm bench` turns an exported one off.
  const token = o.token ?? ((options.env ?? process.env)[TOKEN_ENV] || undefined);
  if (token !== undefined && !TOKEN_PATTERN.test(token)) {
    problems.push(`${o.token !== undefined ? '--token' : TOKEN_ENV}: printable characters without spaces, as the gateway prints it`);
  }
  if (options.checkFiles !== false) {
    for (const k of ['image', 'dir', 'video'] as const)
      if (o[k] !== undefined && !existsSync(o[k])) problems.push(`--${k} ${o[k]}: no such file or folder`);
    if (o.ca !== undefined && !existsSync(o.ca)) problems.push(`--ca ${o.ca}: no such file`);
  }
  let link = o.link;
  if (link !== undefined && (o.delay !== undefined || o.bandwidth !== undefined)) {
    problems.push('give either --link or its shorthands --delay / --bandwidth, not both (e.g. --link delay=20ms,bw=4mbit)');
  } else if (o.delay !== undefined || o.bandwidth !== undefined) {
    const parts = [];
    if (o.delay !== undefined) parts.push(`delay=${o.delay}ms`);
    if (o.bandwidth !== undefined) parts.push(`bw=${o.bandwidth}kbit`);
    link = parseLinkSpec(parts.join(','));
  }
  if (link !== undefined && isTransparent(link.up) && isTransparent(link.down)) link = undefined;
  let linkPath: BenchConfig['linkPath'];
  if (link !== undefined) {
    const path = chooseLinkPath(link, o.linkPath, options.packetPathUnavailable ?? packetPathUnavailable);
    if ('problem' in path) problems.push(`--link ${formatLinkSpec(link)}: ${path.problem}`);
    else linkPath = path.path;
  } else if (given('linkPath')) {
    problems.push('--link-path applies to --link (or --delay / --bandwidth)');
  }
  if (o.linkSeed !== undefined && link === undefined) problems.push('--link-seed applies to --link (or --delay / --bandwidth)');
  if (problems.length) throw new ArgsError(problems.join('\n'));

  const input: InputSource =
    o.image !== undefined
      ? { kind: 'image', path: o.image }
      : o.dir !== undefined
        ? { kind: 'dir', path: o.dir }
        : o.video !== undefined
          ? { kind: 'video', path: o.video, maxFrames: o.videoFrames ?? DEFAULTS.videoFrames }
          : o.clip
            ? { kind: 'clip', maxFrames: o.videoFrames }
            : { kind: 'default' };

  return {
    url: o.url,
    transport: o.transport,
    codec: o.codec,
    mode: o.mode,
    inFlight: o.mode === 'pipelined' ? (o.inFlight ?? DEFAULTS.inFlight) : 1,
    rateFps: o.rate,
    clients: o.clients,
    staggerMs: o.stagger,
    frames: o.duration === undefined ? (o.frames ?? DEFAULTS.frames) : undefined,
    durationS: o.duration,
    repeats: o.repeats,
    warmup: o.warmup,
    input,
    resize: o.resize,
    quality: o.quality,
    video: video
      ? {
          codec: o.codec as VideoCodec,
          bitrateKbps: o.bitrate ?? DEFAULTS.bitrateKbps,
          keyframeInterval: o.keyframeInterval ?? DEFAULTS.keyframeInterval,
        }
      : undefined,
    model: o.model,
    threshold: o.threshold,
    link,
    linkPath,
    linkSeed: o.linkSeed,
    pingIntervalMs: o.pingInterval ?? (isRest || o.mode === 'short' ? 0 : DEFAULTS.pingIntervalMs),
    timeoutMs: o.timeout,
    honourRetryAfter: o.ignoreRetryAfter !== true,
    csv: o.csv,
    json: o.json === true,
    chart: o.chart,
    label: o.label,
    quiet: o.quiet === true,
    token,
    caFile: o.ca,
    insecure: o.insecure === true,
  };
}

/**
 * What carries a link: the byte-stream proxy unless the link loses packets (a byte stream cannot lose a
 * segment), or what was asked for; a problem when that cannot be had here.
 */
export function chooseLinkPath(
  link: LinkProfile,
  asked: LinkPathChoice,
  unavailable: () => string | undefined,
): { path: 'proxy' | 'packet' } | { problem: string } {
  const limits = streamLimitations(link);
  if (asked === 'proxy' && limits.length) return { problem: `${limits.join('; ')} (--link-path proxy)` };
  if (asked === 'proxy' || (asked === 'auto' && limits.length === 0)) return { path: 'proxy' };
  const why = unavailable();
  if (why !== undefined) return { problem: limits.length ? `${limits.join('; ')}, and ${why}` : why };
  return { path: 'packet' };
}

/** The flags that reproduce a config (for the matrix's "commands used" and the JSON summary). */
export function describeConfig(config: BenchConfig): string {
  const mode =
    config.rateFps !== undefined
      ? `open-loop ${config.rateFps} fps`
      : config.mode + (config.mode === 'pipelined' ? ` K=${config.inFlight}` : '');
  const parts = [`${config.transport}/${config.codec}`, mode];
  parts.push(`clients=${config.clients}`);
  parts.push(config.frames !== undefined ? `frames=${config.frames}` : `duration=${config.durationS}s`);
  if (config.warmup) parts.push(`warmup=${config.warmup}`);
  if (config.repeats > 1) parts.push(`repeats=${config.repeats}`);
  if (config.video) parts.push(`${config.video.bitrateKbps} kbit/s, keyframe every ${config.video.keyframeInterval}`);
  if (config.link) parts.push(`link=${formatLinkSpec(config.link)}${config.linkPath === 'packet' ? ' (packet path)' : ''}`);
  if (config.staggerMs) parts.push(`stagger=${config.staggerMs}ms`);
  return parts.join(' ');
}
