/**
 * `pnpm bench:webrtc`: one WebRTC run against a server's WHIP endpoint (the gateway, or the Python peer), on
 * the data channel or the video track, optionally through an emulated link (a user-space UDP relay, no root).
 * Prints the run's figures and its latency per window; --json prints the result object instead.
 *
 *   pnpm bench:webrtc --url http://127.0.0.1:8080 --transport webrtc-track --duration 20
 *   pnpm bench:webrtc --url http://127.0.0.1:8092 --transport webrtc-dc --link 'lte,loss=2%'
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { parseLinkSpec } from '@sightline/shared/link';
import { FIGURES_HEADER, figuresCells, windowsTable } from './report.ts';
import { runWebRtcCell, WEBRTC_CELL_DEFAULTS, WEBRTC_TRANSPORTS, type WebRtcCellOptions, type WebRtcTransport } from './run-cell.ts';
import { mdTable } from '../report.ts';
import { commandArgv, positive, runIfEntry } from '../cli.ts';

const positiveOf = (integer: boolean) => positive(integer ? 'integer' : 'number');

function linkSpec(value: string): string {
  try {
    parseLinkSpec(value);
  } catch (error) {
    throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
  }
  return value;
}

export function webrtcProgram(): Command {
  return new Command('pnpm bench:webrtc')
    .description(
      'Publishes the fixture photos as a moving 640x480 clip to a WHIP endpoint from an aiortc sender, on a data channel (JPEG frame messages, unordered, no retransmissions) or as a video track, and measures each frame from capture to its result.',
    )
    .requiredOption('--url <url>', 'the server, http://host:port (WHIP at /whip)')
    .addOption(
      new Option('--transport <path>', 'webrtc-dc: frames on a data channel; webrtc-track: a video track')
        .choices(WEBRTC_TRANSPORTS)
        .default('webrtc-track'),
    )
    .option('--codec <codec>', 'webrtc-dc: msgpack | json; webrtc-track: vp8 | h264 (default: the first)')
    .option('--link <spec>', "an emulated link, e.g. lte, 3g, 'lte,loss=2%' (by default a user-space UDP relay here; no root)", linkSpec)
    .addOption(
      new Option(
        '--link-path <path>',
        'relay: a UDP relay here carries --link; network: the path to --url carries it already (a server inside a packet link), --link only names it',
      )
        .choices(['relay', 'network'])
        .default('relay'),
    )
    .option('--bind <address>', "the only address the sender's ICE gathers: 127.0.0.1, or a packet link's host end", '127.0.0.1')
    .option('--duration <s>', 'measured seconds, after the warm-up', positiveOf(false), 20)
    .option(
      '--warmup <s>',
      'seconds before the measurement (connection, first keyframe, first inference)',
      positiveOf(false),
      WEBRTC_CELL_DEFAULTS.warmupS,
    )
    .option('--fps <n>', 'camera frame rate', positiveOf(true), WEBRTC_CELL_DEFAULTS.fps)
    .option(
      '--window <n>',
      'webrtc-dc: frames awaiting a reply at most (1: stop-and-wait at the camera ticks); a frame is no longer awaited after an RTO-like timeout that follows the replies',
      positiveOf(true),
      WEBRTC_CELL_DEFAULTS.window,
    )
    .option(
      '--timeout <ms>',
      `a frame with no reply this long after it went out is lost, and a reply after it late (default: ${WEBRTC_CELL_DEFAULTS.dcTimeoutMs} on the data channel, ${WEBRTC_CELL_DEFAULTS.trackTimeoutMs} on the track)`,
      positiveOf(true),
    )
    .option('--every <s>', 'width of the latency windows', positiveOf(false), WEBRTC_CELL_DEFAULTS.windowS)
    .option('--token <token>', 'Bearer token for WHIP')
    .option('--json', 'print the result as JSON (without the per-frame samples)')
    .allowExcessArguments(false);
}

interface CliOptions {
  url: string;
  transport: WebRtcTransport;
  codec?: string;
  link?: string;
  linkPath: 'relay' | 'network';
  bind: string;
  duration: number;
  warmup: number;
  fps: number;
  window: number;
  timeout?: number;
  every: number;
  token?: string;
  json?: boolean;
}

export function cellOptionsFrom(o: CliOptions): WebRtcCellOptions {
  return {
    transport: o.transport,
    codec: o.codec,
    link: o.link,
    linkPath: o.linkPath,
    clientAddress: o.bind,
    serverUrl: o.url,
    durationS: o.duration,
    warmupS: o.warmup,
    fps: o.fps,
    window: o.window,
    timeoutMs: o.timeout,
    windowS: o.every,
    ...(o.token ? { token: o.token } : {}),
  };
}

async function main(): Promise<number> {
  const program = webrtcProgram().parse(commandArgv(), { from: 'user' });
  const o = program.opts<CliOptions>();
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const result = await runWebRtcCell({ ...cellOptionsFrom(o), log });
  if (o.json) {
    const { samples: _samples, ...rest } = result;
    process.stdout.write(`${JSON.stringify(rest, null, 2)}\n`);
    return 0;
  }
  process.stdout.write(
    [
      `${result.transport} ${result.codec} on ${result.link} (${result.linkPath === 'relay' ? 'UDP relay' : result.linkPath}), ${result.fps} fps, ${result.durationS} s after ${result.warmupS} s warm-up`,
      '',
      mdTable(FIGURES_HEADER, [figuresCells(result.figures)]),
      '',
      windowsTable(result.windows),
      '',
      `late replies ${result.late}, unmatched ${result.unmatched}; sender: ${JSON.stringify(result.senderStats)}`,
    ].join('\n') + '\n',
  );
  return 0;
}

runIfEntry(import.meta.url, 'bench:webrtc', main);
