/**
 * One row of measurement per frame: what was sent (to the gateway, or to the model on this device), how
 * it was answered, how long it took.
 */
import type { Codec } from '@sightline/shared/protocol';
import { roundTo } from '@sightline/shared/stats';
import type { FramePath } from '../app/run-on.ts';
import type { DeviceOutcome } from '../inference/on-device-engine.ts';
import type { FrameOutcome, FrameOutcomeKind } from '../transport/frame-sender.ts';

export interface FrameSample {
  /** Message id (unique per page load). */
  id: number;
  /** Which path served the frame: the gateway, or the model running on this device. */
  path: FramePath;
  /** Codec of the frame message; null for frames computed on this device (never on the wire). */
  codec: Codec | null;
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
    path: 'gateway',
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

/** A frame computed on this device: no codec, no bytes on the wire, no gateway time. */
export function sampleFromDeviceOutcome(outcome: DeviceOutcome, timeOrigin: number): FrameSample {
  const { frame, result } = outcome;
  const ok = outcome.kind === 'ok' && result !== undefined;
  return {
    id: frame.id,
    path: 'device',
    codec: null,
    model: result?.model ?? frame.model,
    sentAt: roundTo(timeOrigin + frame.sentAt, 3),
    sentPerf: frame.sentAt,
    answeredPerf: outcome.answeredAt,
    fullMs: roundTo(outcome.answeredAt - frame.sentAt, 3),
    serverMs: null,
    inferenceMs: ok ? roundTo(result.timings.inferenceMs, 3) : null,
    networkQueueMs: null,
    bytesUp: 0,
    bytesDown: 0,
    outcome: outcome.kind,
    detections: ok ? result.detections.length : 0,
    reason: ok ? null : outcome.kind === 'lost' ? 'no_answer' : 'on_device_error',
    skippedBefore: frame.skippedBefore,
  };
}
