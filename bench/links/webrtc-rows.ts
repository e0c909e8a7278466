/**
 * WebRTC's two paths as rows of `pnpm bench:links`: JPEG frames (MessagePack) on an unordered data channel
 * without retransmissions, and the clip as a VP8 video track with its detections on a `detections` channel.
 * Each round is one `runWebRtcCell` (bench/webrtc/) against the gateway the run started: the aiortc sender
 * publishes over WHIP, and the link is applied to its UDP packets by the user-space relay (the datagram engine:
 * rate, queue, delay, jitter and loss, no root), hence the path `self`. The sender stamps send or capture time
 * and matches each reply, so latency is the same full-process figure as the other rows'.
 */
import type { HelloMessage } from '@sightline/shared/protocol';
import { runWebRtcCell, type WebRtcCellResult, type WebRtcTransport } from '../webrtc/index.ts';
import { GATEWAY_VARIABLE } from './bench-client-rows.ts';
import type { CellContext, CellMeasurement, TransportRow } from './cell.ts';

/** The sender's camera rate, as bench:webrtc's: a stop-and-wait JPEG row sends slower than this anyway. */
const FPS = 25;
/** Seconds before the measurement: ICE, DTLS, the first keyframe and the first inference. */
const WARMUP_S = 2;

function webRtcRow(id: string, transport: WebRtcTransport, title: string, codec: string, codecTitle: string): TransportRow {
  return {
    id,
    transport: title,
    codec: codecTitle,
    paths: ['self'],
    losesFramesByDesign: true,
    unavailable: (hello: HelloMessage | undefined) =>
      transport === 'webrtc-track' && !hello?.video?.codecs.includes('vp8')
        ? `the gateway decodes no VP8 (hello.video: ${JSON.stringify(hello?.video ?? null)})`
        : undefined,
    async run(context: CellContext): Promise<CellMeasurement> {
      const durationS = 'seconds' in context.measure ? context.measure.seconds : context.measure.frames / FPS;
      const linked = context.link.spec !== 'none';
      const result = await runWebRtcCell({
        transport,
        codec,
        serverUrl: context.gatewayUrl,
        link: linked ? context.link.profile : undefined,
        linkPath: 'relay',
        seed: context.seed,
        durationS,
        warmupS: WARMUP_S,
        fps: FPS,
        timeoutMs: context.timeoutMs,
      });
      return measurementOfWebRtc(result, roundCommand(transport, codec, context, durationS));
    },
  };
}

/** A round's figures in the table's shape: the measured period's frames only (warm-up and skipped ticks out). */
export function measurementOfWebRtc(result: WebRtcCellResult, command: string): CellMeasurement {
  const measured = result.samples.filter((s) => s.sentAt >= result.originMs && s.sentAt < result.endMs && s.outcome !== 'skipped');
  const answered = measured.filter((s) => s.outcome === 'detected' || s.outcome === 'refused');
  return {
    sent: measured.length,
    ok: measured.filter((s) => s.outcome === 'detected').length,
    refused: measured.filter((s) => s.outcome === 'refused').length,
    lost: measured.filter((s) => s.outcome === 'lost').length,
    reasons: { ...result.figures.reasons, ...(result.lost > 0 ? { lost: result.lost } : {}) },
    wallMs: result.endMs - result.originMs,
    latenciesMs: measured.filter((s) => s.outcome === 'detected' && s.latencyMs !== undefined).map((s) => s.latencyMs!),
    // The sender sees no server time on the track; the table shows none rather than a guess.
    serverMs: [],
    answered: answered.length,
    answeredBytesUp: answered.reduce((sum, s) => sum + s.bytes, 0),
    answeredBytesDown: 0,
    sentBytesUp: measured.reduce((sum, s) => sum + s.bytes, 0),
    commands: [command],
  };
}

function roundCommand(transport: WebRtcTransport, codec: string, context: CellContext, durationS: number): string {
  const link = context.link.spec === 'none' ? [] : ['--link', `'${context.link.spec}'`];
  return [
    'pnpm bench:webrtc',
    '--url',
    `$${GATEWAY_VARIABLE}`,
    '--transport',
    transport,
    '--codec',
    codec,
    '--duration',
    String(durationS),
    '--warmup',
    String(WARMUP_S),
    '--fps',
    String(FPS),
    '--timeout',
    String(context.timeoutMs),
    ...link,
  ].join(' ');
}

export const WEBRTC_ROWS: readonly TransportRow[] = [
  webRtcRow('webrtc-dc', 'webrtc-dc', 'WebRTC data channel (unordered, no retransmissions)', 'msgpack', 'MessagePack JPEG'),
  webRtcRow('webrtc-track', 'webrtc-track', 'WebRTC video track', 'vp8', 'VP8 video'),
];
