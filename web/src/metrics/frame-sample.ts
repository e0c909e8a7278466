/**
 * One row of measurement per frame, whichever route served it: what was sent, how it was answered, how
 * long it took.
 */
import { roundTo } from '@sightline/shared/stats';
import type { FrameOutcome, OutcomeKind } from '../frame-routes/frame-outcome.ts';
import type { FrameRoute } from '../frame-routes/run-on.ts';
import type { StreamCodec } from '../transport/stream-codecs.ts';
import type { Transport } from '../transport/transports.ts';

export interface FrameSample {
  /** Message id (unique per page load). */
  id: number;
  /** Which route served the frame: the gateway, or the model running on this device. */
  path: FrameRoute;
  /** The frame's codec (JPEG in json or msgpack, or a video codec); null for frames computed on this device (never on the wire). */
  codec: StreamCodec | null;
  /** What it travelled on: the WebSocket or WebRTC; null on this device. */
  transport: Transport | null;
  /** Model that answered, or the one requested when there was no answer. */
  model: string;
  /** Wall-clock send time, ms since the epoch. */
  sentAt: number;
  /** performance.now() of the send and of the answer (not exported). */
  sentPerf: number;
  answeredPerf: number;
  /**
   * Gateway: send to answer, including client-side message encoding and decoding. This device: the frame
   * handed to the inference worker to its detections back (image decoding, tensor, run, boxes).
   */
  fullMs: number;
  /** The gateway's own time (null on this device). */
  serverMs: number | null;
  /** The model's run alone: the gateway's onnxruntime-node, or onnxruntime-web on this device. */
  inferenceMs: number | null;
  /** fullMs - serverMs: network both ways, socket buffers and client-side codec time. */
  networkQueueMs: number | null;
  bytesUp: number;
  bytesDown: number;
  outcome: OutcomeKind;
  /** Number of detections (0 unless ok). */
  detections: number;
  /** Error code for `error` outcomes, drop reason for `dropped`. */
  reason: string | null;
  /** Source frames skipped on the client since the previous frame was sent (not exported). */
  skippedBefore: number;
  /**
   * The link the frame crossed, as its connection's hello named it (a canonical spec such as `lte`; `none`
   * without emulation); null for frames computed on this device, which cross no link.
   */
  link: string | null;
}

/**
 * One row for a frame's fate on any route; what a route does not have (a codec, bytes on the wire, a server,
 * a link) is null or 0.
 */
export function sampleFromOutcome(outcome: FrameOutcome, timeOrigin: number, link: string | null = null): FrameSample {
  const { frame } = outcome;
  const result = outcome.kind === 'ok' ? outcome.result : undefined;
  const fullMs = roundTo(outcome.answeredAt - frame.sentAt, 3);
  const serverMs = result?.serverMs === undefined ? null : roundTo(result.serverMs, 3);
  return {
    id: frame.id,
    path: frame.path,
    codec: frame.codec ?? null,
    transport: frame.transport ?? null,
    model: result?.model ?? frame.model ?? '',
    sentAt: roundTo(timeOrigin + frame.sentAt, 3),
    sentPerf: frame.sentAt,
    answeredPerf: outcome.answeredAt,
    fullMs,
    serverMs,
    inferenceMs: result ? roundTo(result.stages.inferenceMs, 3) : null,
    networkQueueMs: serverMs === null ? null : roundTo(Math.max(0, fullMs - serverMs), 3),
    bytesUp: frame.bytesUp ?? 0,
    bytesDown: outcome.bytesDown ?? 0,
    outcome: outcome.kind,
    detections: result ? result.detections.length : 0,
    reason: outcome.kind === 'ok' ? null : outcome.reason,
    skippedBefore: frame.skippedBefore,
    link,
  };
}
