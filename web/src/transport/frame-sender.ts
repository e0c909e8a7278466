/**
 * Flow control for frames on one message channel (the WebSocket, or a WebRTC data channel). Stop-and-wait by
 * default (the next frame goes out when the previous one is answered); up to `maxInFlight` unanswered frames
 * when raised. Each frame's codec is picked when it is sent, so switching codec needs no reconnect: a JPEG goes
 * as a `frame` message in JSON or MessagePack, a video chunk as a `chunk` message in MessagePack, numbered like
 * a frame and answered like one, once the connection's video stream can take it (video/video-uplink.ts).
 * Pure logic: the socket is a `send` function.
 */
import { encodeMessage, wireSize, type WireData } from '@sightline/shared/codec';
import type { ChunkMessage, DetectionsMessage, DroppedMessage, ErrorMessage, FrameMessage } from '@sightline/shared/protocol';
import type { FrameOutcome, RouteResult, SentFrame } from '../frame-routes/frame-outcome.ts';
import type { FrameFormat, FrameRequest } from '../frame-routes/route-port.ts';
import { VideoUplink } from '../video/video-uplink.ts';
import { codecForFrame, type CodecPolicy } from './codec-policy.ts';
import { isVideoCodec, wireCodecOf, type StreamCodec } from './stream-codecs.ts';
import type { Transport } from './transports.ts';

/**
 * An unanswered frame older than this is given up (a `lost` outcome) so a lost answer cannot stall
 * stop-and-wait for long. Well above an answer's normal round trip (tens to a few hundred ms), low enough
 * that a stall is a short gap rather than a frozen dashboard.
 */
export const ANSWER_TIMEOUT_MS = 5000;

export const MIN_IN_FLIGHT = 1;
export const MAX_IN_FLIGHT = 8;

/** A frame on the wire: its codec, transport, size and encoding time are known. */
export type PendingFrame = SentFrame & { path: 'gateway'; codec: StreamCodec; transport: Transport; bytesUp: number; encodeMs: number };

/** Error codes that mean the gateway's decoder has no usable reference: the next chunk must be a keyframe. */
const KEYFRAME_ERRORS: ReadonlySet<string> = new Set(['needs_keyframe', 'bad_video']);

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
  /** The channel the messages travel on (recorded with each frame). Default: the WebSocket. */
  transport?: Transport;
}

export interface FrameOptions {
  model?: string;
  threshold?: number;
  /** Kept with the pending frame for the stats, not sent. */
  skippedBefore?: number;
  /** When the picture was taken (page clock); the send time when not given. Kept, not sent (a chunk's `ts` is it). */
  capturedAt?: number;
  /** The bytes are a video chunk: sent as a `chunk` message. */
  video?: FrameRequest['video'];
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
  /** The connection's video stream at the gateway: which chunk must be a keyframe, which delta may go. */
  readonly video: VideoUplink;
  private readonly transport: Transport;

  constructor(private readonly options: FrameSenderOptions) {
    this.now = options.now ?? (() => performance.now());
    this.policy = options.policy ?? { codec: 'msgpack', abMode: false, abEvery: 30 };
    this.limit = clampInFlight(options.maxInFlight ?? 1);
    this.transport = options.transport ?? 'websocket';
    this.video = new VideoUplink({ now: this.now });
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
  nextCodec(): StreamCodec {
    return codecForFrame(this.sequence, this.policy);
  }

  /** How the next frame must be encoded: a JPEG, or the video stream's next chunk (a keyframe when it needs one). */
  nextFormat(): FrameFormat {
    const codec = this.nextCodec();
    if (!isVideoCodec(codec)) return { kind: 'jpeg' };
    return { kind: 'video', codec, keyFrame: this.video.keyframeNeeded(codec) !== undefined };
  }

  /** The gateway asked for a keyframe (its `keyframe` message). */
  keyframeRequested(): void {
    this.video.requestKeyframe();
  }

  canSend(): boolean {
    return this.pending.size < this.limit;
  }

  /** Encodes and sends one frame; undefined (nothing sent) when at the in-flight limit or the socket refused. */
  sendFrame(image: Uint8Array, frameOptions: FrameOptions = {}): PendingFrame | undefined {
    if (!this.canSend()) return undefined;
    const { video, model, threshold } = frameOptions;
    const chunk = video && { codec: video.codec, key: video.key, seq: video.seq, model, threshold };
    // A delta the gateway could not decode (its predecessor never went) is not sent: the next chunk is a keyframe.
    if (chunk && !this.video.admit(chunk)) return undefined;
    // What the bytes are decides the message: the policy may have moved on while they were encoded.
    const codec: StreamCodec = video ? video.codec : wireCodecOf(this.nextCodec());
    const id = this.options.nextId();
    const sentAt = this.now();
    const message: FrameMessage | ChunkMessage = video
      ? {
          type: 'chunk',
          id,
          // A chunk's ts is its capture time: the gateway tracks under it and echoes it.
          ts: frameOptions.capturedAt ?? sentAt,
          codec: video.codec,
          key: video.key,
          data: image,
          ...(video.key ? { width: video.width, height: video.height } : {}),
        }
      : { type: 'frame', id, ts: sentAt, image };
    if (model !== undefined) message.model = model;
    if (threshold !== undefined) message.threshold = threshold;
    const data = encodeMessage(message, wireCodecOf(codec));
    const encodeMs = this.now() - sentAt;
    if (!this.options.send(data)) return undefined;
    if (chunk) this.video.sent(chunk);
    const frame: PendingFrame = {
      id,
      path: 'gateway',
      codec,
      transport: this.transport,
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
        if (isVideoCodec(frame.codec) && KEYFRAME_ERRORS.has(answer.code)) this.video.requestKeyframe();
        return { ...settled, kind: 'error', reason: answer.code, message: answer.message, ...retryAfter(answer) };
    }
  }

  /** Gives up on every unanswered frame (the connection closed): each becomes a `lost` outcome. */
  abandonAll(at: number = this.now()): GatewayOutcome[] {
    const lost = [...this.pending.values()].map((frame) => lostOutcome(frame, at));
    this.pending.clear();
    // The next connection is a new video stream at the gateway: it starts with a keyframe.
    this.video.restart();
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
export function resultOf(answer: DetectionsMessage): RouteResult {
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
