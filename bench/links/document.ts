/** The links table's section of docs/runs/links.md (between `<!-- links:begin -->` and `<!-- links:end -->`). */
import { commandsBlock, contextLines, sectionHead, type RunContext } from '../report.ts';
import type { FrameSource } from './cell.ts';
import { comparisonsSection, gapsList, linksTable } from './table.ts';
import type { CellOutcome } from './runner.ts';

export interface LinksSectionInput {
  /** The command line that produced it, e.g. `pnpm bench:links --write`. */
  invocation: string;
  outcomes: readonly CellOutcome[];
  context: RunContext;
  /** What ran: the gateway, the packet path, the seeds. */
  details: readonly string[];
  frames: FrameSource;
  durationS: number;
  warmup: number;
  rounds: number;
  /** Chart files, relative to the document. */
  charts: { detections: string; latency: string } | undefined;
  /** The gateway's start command, then every round's `pnpm bench` line. */
  commands: readonly string[];
}

export function linksSection(input: LinksSectionInput): string {
  const { frames } = input;
  const gaps = gapsList(input.outcomes);
  const comparisons = comparisonsSection(input.outcomes);
  return [
    ...sectionHead('Transports, codecs and links', input.invocation, 'bench/links/main.ts'),
    '',
    `Every cell sends the same pictures: six fixture photos as a moving ${frames.width}x${frames.height} clip (${frames.count} frames,`,
    'each photo panned and zoomed for 2 s, 25 fps: `--clip`), as JPEG at quality 80 over the WebSocket (MessagePack, or JSON with',
    'the image in Base64) and over REST (`POST /api/detect`, the body in the same codec, a new TCP connection per frame:',
    `\`Connection: close\`), or encoded once as VP8 at ${frames.bitrateKbps} kbit/s (a keyframe every ${frames.keyframeInterval} frames,`,
    "realtime mode, by the gateway's ffmpeg) and sent as one `chunk` message per frame. One client, stop-and-wait (the",
    `dashboard's pacing: the next frame when the answer is in), ${input.warmup} warm-up frame(s) then ${input.durationS} s measured per`,
    `round, ${input.rounds} round(s) per cell interleaved over the rows of a link (A B C, C B A) and pooled.`,
    '',
    '*detections/s*: frames answered with detections per second of the measured phase. *Latency*: full process, from',
    'encoding the request to the decoded answer. *Bytes*: as the client wrote and read them (WebSocket payload and frame',
    'header; REST request line, headers and body; TCP/IP headers not counted); bytes up / s counts every frame sent.',
    '*refused*: answered `dropped` or `error`; *lost*: no answer within the timeout, or the connection broke. *path*:',
    'what carried the link: `TCP proxy` (user-space, per connection: rate, queue, delay, jitter; no loss, no root),',
    '`packet path` (real TCP segments through a network namespace: loss and retransmission, slow start; root),',
    '`UDP relay` (the WebRTC rows: the datagram engine on every packet between the aiortc sender and the gateway: rate,',
    'queue, delay, jitter, loss; no root). WebRTC rows: latency from send (data channel) or capture (track) to the',
    'reply; *lost* on the track counts frames no result named (lost on the way, or skipped because the gateway detects',
    'the newest picture); their bytes are the frame payloads the sender wrote. See BENCHMARKS.md, *Link lab*, for what each emulates.',
    '',
    contextLines(input.context, input.details),
    '',
    linksTable(input.outcomes),
    ...(gaps ? ['', gaps] : []),
    ...(comparisons ? ['', comparisons] : []),
    ...(input.charts
      ? [
          '',
          `![Detections per second per transport, codec and link](${input.charts.detections})`,
          '',
          `![Latency p50 and p95 per transport, codec and link](${input.charts.latency})`,
        ]
      : []),
    '',
    commandsBlock(input.commands),
  ].join('\n');
}
