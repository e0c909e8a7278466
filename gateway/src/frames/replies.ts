/**
 * The replies every way in builds, whatever the frame came over: `detections` with its stage timings, and
 * `error`. Timings are assembled and rounded here only.
 */
import type { DetectionsMessage, ErrorMessage, StageTimings } from '@sightline/shared/protocol';
import { roundTo } from '@sightline/shared/stats';
import { excerpt, MAX_ERROR_MESSAGE_CHARS, ProtocolError } from '@sightline/shared/validation';
import type { Detected } from './pending-frame.ts';

const ms = (value: number): number => roundTo(value, 3);

/**
 * The stage timings of a detected frame: its wait from receipt to its run (one clock, the same for every
 * way in), the frame path's own stages, and serverMs closed now, as the reply is handed to the transport.
 */
export function stageTimings(detected: Detected, receivedAt: number): StageTimings {
  const { stages } = detected.result;
  return {
    queueMs: ms(detected.queueMs),
    decodeMs: ms(stages.decodeMs),
    preprocessMs: ms(stages.preprocessMs),
    inferenceMs: ms(stages.inferenceMs),
    postprocessMs: ms(stages.postprocessMs),
    serverMs: ms(performance.now() - receivedAt),
  };
}

/** The answer to a detected frame; `request` supplies the echoed id and ts (0 when an HTTP body sets none). */
export function detectionsReply(
  request: { id?: number | undefined; ts?: number | undefined },
  detected: Detected,
  receivedAt: number,
): DetectionsMessage {
  const { result } = detected;
  return {
    type: 'detections',
    id: request.id ?? 0,
    ts: request.ts ?? 0,
    model: detected.model,
    width: result.width,
    height: result.height,
    detections: result.detections,
    timings: stageTimings(detected, receivedAt),
  };
}

export interface FailureReply {
  reply: ErrorMessage;
  /** The original error when it was the gateway's own fault (not a ProtocolError): log it, never send it. */
  fault?: unknown;
}

/**
 * The `error` answer for anything a frame path threw. A ProtocolError is the client's to read; any other
 * error is the gateway's fault and goes out as `internal` without its details.
 */
export function errorReply(error: unknown, id?: number, retryAfter?: number): FailureReply {
  const known = error instanceof ProtocolError ? error : new ProtocolError('internal', 'internal error while processing the frame');
  const retryAfterMs = retryAfter ?? known.retryAfterMs;
  const messageId = id ?? known.id;
  // Every message is bounded here too, whatever built it: an error must never echo a payload back.
  const message = excerpt(known.message, MAX_ERROR_MESSAGE_CHARS);
  const reply: ErrorMessage = {
    type: 'error',
    ...(messageId === undefined ? {} : { id: messageId }),
    code: known.code,
    message,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  };
  return error instanceof ProtocolError ? { reply } : { reply, fault: error };
}
