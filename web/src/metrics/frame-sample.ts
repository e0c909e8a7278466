/** One row of measurement per frame message: what was sent, how it was answered, how long it took. */
import type { Codec } from '@sightline/shared/protocol';
import { roundTo } from '@sightline/shared/stats';
import type { FrameOutcome, FrameOutcomeKind } from '../transport/frame-sender.ts';

export interface FrameSample {
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

export function sampleFromOutcome(outcome: FrameOutcome, timeOrigin: number): FrameSample {
  const { frame, answer } = outcome;
  const fullMs = roundTo(outcome.answeredAt - frame.sentAt, 3);
  const detections = answer?.type === 'detections' ? answer : undefined;
  const serverMs = detections ? roundTo(detections.timings.serverMs, 3) : null;
  let reason: string | null = null;
  if (answer?.type === 'error') reason = answer.code;
  else if (answer?.type === 'dropped') reason = answer.reason;
  else if (outcome.kind === 'lost') reason = 'no_answer';
  return {
    id: frame.id,
    codec: frame.codec,
    model: detections?.model ?? frame.model ?? '',
    sentAt: roundTo(timeOrigin + frame.sentAt, 3),
    sentPerf: frame.sentAt,
    answeredPerf: outcome.answeredAt,
    fullMs,
    serverMs,
    inferenceMs: detections ? roundTo(detections.timings.inferenceMs, 3) : null,
    networkQueueMs: serverMs === null ? null : roundTo(Math.max(0, fullMs - serverMs), 3),
    bytesUp: frame.bytesUp,
    bytesDown: outcome.bytesDown,
    outcome: outcome.kind,
    detections: detections ? detections.detections.length : 0,
    reason,
    skippedBefore: frame.skippedBefore,
  };
}
