/**
 * Flow control for frames on the one WebSocket. Stop-and-wait by default (the next frame goes out when the
 * previous one is answered); up to `maxInFlight` unanswered frames when raised. Each frame's codec is picked
 * when it is sent, so switching codec needs no reconnect. Pure logic: the socket is a `send` function.
 */
import { encodeMessage, wireSize, type WireData } from '@sightline/shared/codec';
import type { Codec, DetectionsMessage, DroppedMessage, ErrorMessage, FrameMessage } from '@sightline/shared/protocol';
import type { FrameOutcome, RouteResult, SentFrame } from '../frame-routes/frame-outcome.ts';
import { codecForFrame, type CodecPolicy } from './codec-policy.ts';

/**
 * An unanswered frame older than this is given up (a `lost` outcome) so a lost answer cannot stall
 * stop-and-wait for long. Well above an answer's normal round trip (tens to a few hundred ms), low enough
 * that a stall is a short gap rather than a frozen dashboard.
 */
export const ANSWER_TIMEOUT_MS = 5000;

export const MIN_IN_FLIGHT = 1;
export const MAX_IN_FLIGHT = 8;

/** A frame on the wire: its codec, size and encoding time are known. */
export type PendingFrame = SentFrame & { path: 'gateway'; codec: Codec; bytesUp: number; encodeMs: number };

export type FrameAnswer = DetectionsMessage | DroppedMessage | ErrorMessage;

export type GatewayOutcome = FrameOutcome<PendingFrame>;

export interface FrameSenderOptions {
  /** Hands one encoded message to the socket; false when it could not be sent. */
  send: (data: WireData) => boolean;
  /** Message ids, shared with pings so an `error` id names one message. */
  nextId: () => number;
  now?: () => number;
  policy?: CodecPolicy;
  maxInFlight?: number;
}

export interface FrameOptions {
  model?: string;
  threshold?: number;
  /** Kept with the pending frame for the stats, not sent. */
  skippedBefore?: number;
  /** When the picture was taken (page clock); the send time when not given. Kept, not sent. */
  capturedAt?: number;
}

export function clampInFlight(value: number): number {
  if (!Number.isFinite(value)) return MIN_IN_FLIGHT;
  return Math.min(MAX_IN_FLIGHT, Math.max(MIN_IN_FLIGHT, Math.round(value)));
}

export class FrameSender {
  private readonly pending = new Map<number, PendingFrame>();
  private readonly now: () => number;
  private policy: CodecPolicy;
  private limit: number;
  /** Frames sent so far; drives A/B alternation. */
  private sequence = 0;

  constructor(private readonly options: FrameSenderOptions) {
    this.now = options.now ?? (() => performance.now());
    this.policy = options.policy ?? { codec: 'msgpack', abMode: false, abEvery: 30 };
    this.limit = clampInFlight(options.maxInFlight ?? 1);
  }

  get inFlight(): number {
    return this.pending.size;
  }

  get maxInFlight(): number {
    return this.limit;
  }

  get framesSent(): number {
    return this.sequence;
  }

  setMaxInFlight(value: number): void {
    this.limit = clampInFlight(value);
  }

  setPolicy(policy: CodecPolicy): void {
    const abChanged = policy.abMode !== this.policy.abMode || policy.abEvery !== this.policy.abEvery;
    this.policy = { ...policy };
    // A fresh A/B run starts with a full block of the selected codec.
    if (abChanged) this.sequence = 0;
  }

  /** The codec the next frame will use. */
  nextCodec(): Codec {
    return codecForFrame(this.sequence, this.policy);
  }

  canSend(): boolean {
    return this.pending.size < this.limit;
  }

  /** Encodes and sends one frame; undefined (nothing sent) when at the in-flight limit or the socket refused. */
  sendFrame(image: Uint8Array, frameOptions: FrameOptions = {}): PendingFrame | undefined {
    if (!this.canSend()) return undefined;
    const codec = this.nextCodec();
    const id = this.options.nextId();
    const sentAt = this.now();
    const message: FrameMessage = { type: 'frame', id, ts: sentAt, image };
    if (frameOptions.model !== undefined) message.model = frameOptions.model;
    if (frameOptions.threshold !== undefined) message.threshold = frameOptions.threshold;
    const data = encodeMessage(message, codec);
    const encodeMs = this.now() - sentAt;
    if (!this.options.send(data)) return undefined;
    const frame: PendingFrame = {
      id,
      path: 'gateway',
      codec,
      sentAt,
      bytesUp: wireSize(data),
      encodeMs,
      model: frameOptions.model,
      threshold: frameOptions.threshold,
      skippedBefore: frameOptions.skippedBefore ?? 0,
      capturedAt: frameOptions.capturedAt ?? sentAt,
    };
    this.pending.set(id, frame);
    this.sequence++;
    return frame;
  }

  /** Whether `id` is a frame waiting for its answer. */
  isPending(id: number | undefined): boolean {
    return id !== undefined && this.pending.has(id);
  }

  /**
   * Settles the frame an answer refers to. Undefined when the answer is for no pending frame (a late answer
   * after a reconnect, or an error about a ping).
   */
  handleAnswer(answer: FrameAnswer, bytesDown: number, receivedAt: number = this.now()): GatewayOutcome | undefined {
    if (answer.id === undefined) return undefined;
    const frame = this.pending.get(answer.id);
    if (!frame) return undefined;
    this.pending.delete(answer.id);
    const settled = { frame, answeredAt: receivedAt, bytesDown };
    switch (answer.type) {
      case 'detections':
        return { ...settled, kind: 'ok', result: resultOf(answer) };
      case 'dropped':
        return { ...settled, kind: 'dropped', reason: answer.reason, ...retryAfter(answer) };
      case 'error':
        return { ...settled, kind: 'error', reason: answer.code, message: answer.message, ...retryAfter(answer) };
    }
  }

  /** Gives up on every unanswered frame (the connection closed): each becomes a `lost` outcome. */
  abandonAll(at: number = this.now()): GatewayOutcome[] {
    const lost = [...this.pending.values()].map((frame) => lostOutcome(frame, at));
    this.pending.clear();
    return lost;
  }

  /** Gives up on frames unanswered for longer than `timeoutMs`, so a lost answer cannot stall the stream. */
  expire(timeoutMs: number, at: number = this.now()): GatewayOutcome[] {
    const expired: GatewayOutcome[] = [];
    for (const frame of this.pending.values()) {
      if (at - frame.sentAt > timeoutMs) expired.push(lostOutcome(frame, at));
    }
    for (const outcome of expired) this.pending.delete(outcome.frame.id);
    return expired;
  }
}

/** A refusal's retryAfterMs, only where the gateway sent one (protocol 2). */
function retryAfter(answer: DroppedMessage | ErrorMessage): { retryAfterMs?: number } {
  return answer.retryAfterMs === undefined ? {} : { retryAfterMs: answer.retryAfterMs };
}

function lostOutcome(frame: PendingFrame, at: number): GatewayOutcome {
  return { frame, kind: 'lost', answeredAt: at, bytesDown: 0, reason: 'no_answer' };
}

/** The gateway's answer as any route's result: its stages, plus its own time and queue wait. */
function resultOf(answer: DetectionsMessage): RouteResult {
  const { queueMs, decodeMs, preprocessMs, inferenceMs, postprocessMs, serverMs } = answer.timings;
  return {
    model: answer.model,
    width: answer.width,
    height: answer.height,
    detections: answer.detections,
    stages: { decodeMs, preprocessMs, inferenceMs, postprocessMs },
    serverMs,
    queueMs,
  };
}
