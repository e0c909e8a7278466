/**
 * The rows the benchmark client runs: WebSocket in both codecs, REST (one request, on a new connection, per
 * frame) in both codecs, and WebSocket video (VP8 chunks). Each round is `pnpm bench` run in process from the
 * argv it prints, against the gateway the run started, on the link path the planner chose (the client's own
 * --link and --link-path): the printed commands are exactly what ran.
 */
import type { HelloMessage } from '@sightline/shared/protocol';
import { commandLine } from '../report.ts';
import { parseArgs, type BenchConfig } from '../client/args.ts';
import { loadInputs } from '../client/inputs.ts';
import { runBenchmark } from '../client/run.ts';
import type { FrameInput } from '../client/types.ts';
import type { CellContext, CellMeasurement, FrameSource, TransportRow } from './cell.ts';
import { measurementOf } from './measurement.ts';

/** The shell variable the printed commands name the gateway by. */
export const GATEWAY_VARIABLE = 'GATEWAY';

/** The frames every row sends: the clip (or the photos) at a size, as JPEG (quality 80) or as a video stream. */
export function inputArgv(frames: FrameSource, video: boolean): string[] {
  const size = ['--resize', `${frames.width}x${frames.height}`];
  const argv = frames.kind === 'clip' ? ['--clip', ...size, '--video-frames', String(frames.count)] : size;
  if (video) argv.push('--bitrate', String(frames.bitrateKbps), '--keyframe-interval', String(frames.keyframeInterval));
  return argv;
}

/** The client's transports a row can be: `rest` opens a connection per frame, `rest-keepalive` keeps one. */
export type ClientTransport = 'ws' | 'rest' | 'rest-keepalive';

/** The `pnpm bench` argv of one round of a cell (without --url). */
export function roundArgv(row: { transport: ClientTransport; codec: string }, context: Omit<CellContext, 'gatewayUrl'>): string[] {
  const video = row.codec === 'vp8';
  const measure =
    'seconds' in context.measure ? ['--duration', String(context.measure.seconds)] : ['--frames', String(context.measure.frames)];
  const argv = [
    '--transport',
    row.transport,
    '--codec',
    row.codec,
    ...inputArgv(context.frames, video),
    '--warmup',
    String(context.warmup),
    ...measure,
    '--timeout',
    String(context.timeoutMs),
  ];
  if (context.path === 'proxy' || context.path === 'packet') {
    argv.push('--link', context.link.spec, '--link-path', context.path, '--link-seed', String(context.seed));
  }
  return argv;
}

/** The printed form of a round: the gateway by its variable; the packet path needs root. */
export function roundCommand(argv: readonly string[], path: CellContext['path']): string {
  const command = commandLine(
    'pnpm bench',
    ['--url', `$${GATEWAY_VARIABLE}`, ...argv, '--quiet'],
    new Map([[`$${GATEWAY_VARIABLE}`, GATEWAY_VARIABLE]]),
  );
  return path === 'packet' ? `${command}   # as root (packet path)` : command;
}

/** Inputs are made once per run and kept: the clip (and its video encoding) is the same for every cell. */
const inputCache = new Map<string, Promise<FrameInput[]>>();

function inputsFor(config: BenchConfig): Promise<FrameInput[]> {
  const key = JSON.stringify([config.input, config.resize, config.quality, config.video]);
  let cached = inputCache.get(key);
  if (!cached) {
    cached = loadInputs({ source: config.input, resize: config.resize, quality: config.quality, video: config.video });
    inputCache.set(key, cached);
    cached.catch(() => inputCache.delete(key));
  }
  return cached;
}

async function runRound(row: { transport: ClientTransport; codec: string }, context: CellContext): Promise<CellMeasurement> {
  const argv = roundArgv(row, context);
  const config = parseArgs(['--url', context.gatewayUrl, ...argv, '--quiet']);
  const result = await runBenchmark(config, await inputsFor(config));
  const failures = result.repeats.flatMap((r) => r.clientFailures);
  if (failures.length && result.repeats.every((r) => r.samples.every((s) => s.warmup))) throw new Error(failures.join('; '));
  const samples = result.repeats.flatMap((r) => r.samples);
  const wallMs = result.repeats.reduce((a, r) => a + r.wallMs, 0);
  return measurementOf(samples, wallMs, [roundCommand(argv, context.path)]);
}

export function clientRow(
  id: string,
  transport: ClientTransport,
  codec: 'msgpack' | 'json' | 'vp8',
  names: [string, string],
): TransportRow {
  return {
    id,
    transport: names[0],
    codec: names[1],
    paths: ['proxy', 'packet'],
    ...(codec === 'vp8'
      ? {
          unavailable: (hello: HelloMessage | undefined) =>
            hello?.video?.codecs.includes('vp8')
              ? undefined
              : `the gateway decodes no VP8 (hello.video: ${JSON.stringify(hello?.video ?? null)})`,
        }
      : {}),
    run: (context) => runRound({ transport, codec }, context),
  };
}

export const WS_MSGPACK = clientRow('ws-msgpack', 'ws', 'msgpack', ['WebSocket', 'MessagePack JPEG']);
export const WS_JSON = clientRow('ws-json', 'ws', 'json', ['WebSocket', 'JSON + Base64 JPEG']);
export const REST_MSGPACK = clientRow('rest-msgpack', 'rest', 'msgpack', ['REST, new connection per frame', 'MessagePack JPEG']);
export const REST_JSON = clientRow('rest-json', 'rest', 'json', ['REST, new connection per frame', 'JSON + Base64 JPEG']);
export const WS_VP8 = clientRow('ws-vp8', 'ws', 'vp8', ['WebSocket video', 'VP8 chunks']);
export const REST_KEEPALIVE_MSGPACK = clientRow('rest-keepalive-msgpack', 'rest-keepalive', 'msgpack', [
  'REST, one keep-alive connection',
  'MessagePack JPEG',
]);

/** The benchmark client's rows, in the table's order. */
export const BENCH_CLIENT_ROWS: readonly TransportRow[] = [WS_MSGPACK, WS_JSON, REST_MSGPACK, REST_JSON, WS_VP8];
