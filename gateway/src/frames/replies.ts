/**
 * The replies every frame path builds, whether it came over the WebSocket or HTTP: `detections` with its
 * stage timings, and `error`. Timings are assembled and rounded here only.
 */
import type { DetectionsMessage, ErrorMessage, StageTimings } from '@sightline/shared/protocol';
import { roundTo } from '@sightline/shared/stats';
import { excerpt, MAX_ERROR_MESSAGE_CHARS, ProtocolError } from '@sightline/shared/validation';
import type { DetectResult } from './detector.ts';

export interface FrameTiming {
  /** performance.now() when the whole message had arrived: the start of serverMs. */
  receivedAt: number;
  /**
   * performance.now() when its detection started (it left the scheduler's lane). From receipt to here the
   * frame was read, checked and waited for a place, behind its connection's earlier frames and the others'
   * lanes, on WebSocket and HTTP alike: that wait is part of queueMs.
   */
  startedAt?: number;
}

const ms = (value: number): number => roundTo(value, 3);

export function stageTimings(result: DetectResult, timing: FrameTiming): StageTimings {
  const { stages } = result;
  return {
    // Waiting for a place counts as queueing, like the wait for a worker.
    queueMs: ms(stages.queueMs + (timing.startedAt === undefined ? 0 : timing.startedAt - timing.receivedAt)),
    decodeMs: ms(stages.decodeMs),
    preprocessMs: ms(stages.preprocessMs),
    inferenceMs: ms(stages.inferenceMs),
    postprocessMs: ms(stages.postprocessMs),
    serverMs: ms(performance.now() - timing.receivedAt),
  };
}

/** The answer to a detected frame; `request` supplies the echoed id and ts (0 when an HTTP body sets none). */
export function detectionsReply(
  request: { id?: number | undefined; ts?: number | undefined },
  result: DetectResult,
  timing: FrameTiming,
): DetectionsMessage {
  return {
    type: 'detections',
    id: request.id ?? 0,
    ts: request.ts ?? 0,
    model: result.model,
    width: result.width,
    height: result.height,
    detections: result.detections,
    timings: stageTimings(result, timing),
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
