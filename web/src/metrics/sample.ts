/** One row of measurement per frame message: what was sent, how it was answered, how long it took. */
import type { Codec } from '@sightline/shared/protocol';
import type { FrameOutcome, FrameOutcomeKind } from '../transport/frame-sender.ts';

export interface Sample {
  /** Message id (unique per page load). */
  id: number;
  codec: Codec;
  /** Model that answered, or the one requested when there was no answer. */
  model: string;
  /** Wall-clock send time, ms since the epoch. */
  sentAt: number;
  /** performance.now() of the send and of the answer (not exported). */
  sentPerf: number;
  answeredPerf: number;
  /** Send to answer, including client-side message encoding and decoding. */
  fullMs: number;
  serverMs: number | null;
  inferenceMs: number | null;
  /** fullMs - serverMs: network both ways, socket buffers and client-side codec time. */
  networkQueueMs: number | null;
  bytesUp: number;
  bytesDown: number;
  outcome: FrameOutcomeKind;
  /** Number of detections (0 unless ok). */
  detections: number;
  /** Error code for `error` outcomes, drop reason for `dropped`. */
  reason: string | null;
  /** Source frames skipped on the client since the previous frame was sent (not exported). */
  skippedBefore: number;
}

const round3 = (value: number): number => Math.round(value * 1000) / 1000;

export function sampleFromOutcome(outcome: FrameOutcome, timeOrigin: number): Sample {
  const { frame, answer } = outcome;
  const fullMs = round3(outcome.answeredAt - frame.sentAt);
  const detections = answer?.type === 'detections' ? answer : undefined;
  const serverMs = detections ? round3(detections.timings.serverMs) : null;
  let reason: string | null = null;
  if (answer?.type === 'error') reason = answer.code;
  else if (answer?.type === 'dropped') reason = answer.reason;
  else if (outcome.kind === 'lost') reason = 'no_answer';
  return {
    id: frame.id,
    codec: frame.codec,
    model: detections?.model ?? frame.model ?? '',
    sentAt: round3(timeOrigin + frame.sentAt),
    sentPerf: frame.sentAt,
    answeredPerf: outcome.answeredAt,
    fullMs,
    serverMs,
    inferenceMs: detections ? round3(detections.timings.inferenceMs) : null,
    networkQueueMs: serverMs === null ? null : round3(Math.max(0, fullMs - serverMs)),
    bytesUp: frame.bytesUp,
    bytesDown: outcome.bytesDown,
    outcome: outcome.kind,
    detections: detections ? detections.detections.length : 0,
    reason,
    skippedBefore: frame.skippedBefore,
  };
}
