/**
 * One benchmark WebSocket to the gateway: the shared wire client (`@sightline/harness/client`, recording
 * nothing, so a run of minutes holds only its results) with what the benchmark measures on top: connect and
 * upgrade time, bytes per message on the wire, each answer matched to its frame by id with its latency,
 * ping round trips, and sends kept under the gateway's message-rate limit. Used by the serial, pipelined,
 * open-loop and short-connection drivers and by the reliability scenarios.
 */
import { WireClient, type WireEvent } from '@sightline/harness/client';
import type { ChunkMessage, Codec, DetectionsMessage, FrameMessage, HelloMessage, ServerMessage } from '@sightline/shared/protocol';
import { authHeaders, tlsOptions, unauthorizedHint, type ClientAccess } from '../access.ts';
import { RateCap } from '../pacing.ts';
import type { FrameInput, FrameReport } from '../types.ts';

export interface WsConnectionOptions {
  /** Gateway base URL, http(s)://host:port. */
  baseUrl: string;
  codec: Codec;
  timeoutMs: number;
  model?: string | undefined;
  threshold?: number | undefined;
  /** Token and certificate trust, for a gateway that asks for them. */
  access?: ClientAccess | undefined;
  /** The clock latencies are read from (performance.now); a test passes one it moves itself. */
  now?: () => number;
  /** Wait as long as a refusal's `retryAfterMs` says before the next frame (default true; false: --ignore-retry-after). */
  honourRetryAfter?: boolean;
}

/** Bytes of a WebSocket frame header for a payload of `length` bytes (client frames carry a 4-byte mask). */
export function wsHeaderBytes(length: number, masked: boolean): number {
  return (length < 126 ? 2 : length < 65_536 ? 4 : 10) + (masked ? 4 : 0);
}

interface Pending {
  startedAt: number;
  bytesUp: number;
  timer: NodeJS.Timeout;
  resolve: (result: FrameReport) => void;
}

export function resultFromReply(message: ServerMessage, latencyMs: number, bytesUp: number, bytesDown: number): FrameReport {
  switch (message.type) {
    case 'detections':
      return detectionsResult(message, latencyMs, bytesUp, bytesDown);
    case 'dropped':
      return { outcome: 'dropped', latencyMs, bytesUp, bytesDown, errorCode: message.reason, ...retryOf(message) };
    case 'error':
      return {
        outcome: 'error',
        latencyMs,
        bytesUp,
        bytesDown,
        errorCode: message.code,
        errorMessage: message.message,
        ...retryOf(message),
      };
    default:
      return { outcome: 'error', latencyMs, bytesUp, bytesDown, errorCode: 'unexpected', errorMessage: `unexpected ${message.type}` };
  }
}

const retryOf = (message: { retryAfterMs?: number | undefined }) =>
  message.retryAfterMs === undefined ? {} : { retryAfterMs: message.retryAfterMs };

export function detectionsResult(
  message: Pick<DetectionsMessage, 'detections' | 'timings'>,
  latencyMs: number,
  bytesUp: number,
  bytesDown: number,
): FrameReport {
  const t = message.timings;
  return {
    outcome: 'ok',
    latencyMs,
    bytesUp,
    bytesDown,
    detections: message.detections.length,
    serverMs: t.serverMs,
    inferenceMs: t.inferenceMs,
    queueMs: t.queueMs,
    decodeMs: t.decodeMs,
    preprocessMs: t.preprocessMs,
    postprocessMs: t.postprocessMs,
  };
}

/** A frame message for an image; a chunk of the connection's video stream for a video frame (its size with a keyframe). */
export function messageFor(input: FrameInput, id: number, ts: number): FrameMessage | ChunkMessage {
  if (!input.video) return { type: 'frame', id, ts, image: input.bytes };
  const { codec, key } = input.video;
  const chunk: ChunkMessage = { type: 'chunk', id, ts, codec, key, data: input.bytes };
  if (key) {
    chunk.width = input.width;
    chunk.height = input.height;
  }
  return chunk;
}

export class WsConnection {
  hello: HelloMessage | undefined;
  /** TCP connect time (ms): from creating the socket to its connect event. */
  connectMs = Number.NaN;
  /** From the start of connecting to the completed upgrade (ms). */
  handshakeMs = Number.NaN;
  /** Answers that matched no pending frame (late after a timeout, or unknown ids). */
  unmatched = 0;
  /**
   * The gateway asked for a keyframe (its video stream cannot go on from what it has) and none has been sent
   * since: the next video frame sent should be one.
   */
  keyframeWanted = false;
  closeReason: string | undefined;
  /** The close code and reason as received (1006 when the connection dropped without a close frame). */
  closeCode: number | undefined;
  closeText: string | undefined;

  private client: WireClient | undefined;
  private readonly pending = new Map<number, Pending>();
  private readonly pings = new Map<number, { startedAt: number; resolve: (rtt: number | undefined) => void; timer: NodeJS.Timeout }>();
  private nextId = 1;
  private nextPingId = 1;
  private rateCap = new RateCap(undefined);
  /** No frame before this time (the gateway's last `retryAfterMs`), on `now`'s clock. */
  private holdUntil = -Infinity;
  private readonly now: () => number;

  private constructor(private readonly options: WsConnectionOptions) {
    this.now = options.now ?? (() => performance.now());
  }

  /** Connects; resolves once the upgrade completed (the hello may still be on its way). */
  static async open(options: WsConnectionOptions): Promise<WsConnection> {
    // The connection exists before its socket does: the hello can arrive before `connect` resolves.
    const connection = new WsConnection(options);
    try {
      connection.client = await WireClient.connect(options.baseUrl, {
        record: false,
        headers: authHeaders(options.access),
        tls: tlsOptions(options.access),
        handshakeTimeoutMs: Math.max(options.timeoutMs, 10_000),
        onEvent: (event) => connection.onEvent(event),
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const hint = / 401\b/.test(message) ? ` (${unauthorizedHint(options.access?.token)})` : '';
      throw new Error(`${message}${hint}`, { cause: error });
    }
    connection.connectMs = connection.client.connectMs;
    connection.handshakeMs = connection.client.handshakeMs;
    return connection;
  }

  get alive(): boolean {
    return this.client?.open ?? false;
  }

  /** Bytes the socket wrote / read so far, all messages and the upgrade included. */
  get socketBytes(): { written: number; read: number } {
    return this.client?.socketBytes ?? { written: 0, read: 0 };
  }

  /**
   * Resolves when the next frame may go out: under the gateway's message-rate limit, and not before the time
   * its last refusal gave (at once when neither holds it back).
   */
  whenSendAllowed(): Promise<void> | undefined {
    const waitMs = Math.max(this.rateCap.claim(this.now()), this.heldMs());
    return waitMs > 0 ? new Promise((resolve) => setTimeout(resolve, waitMs)) : undefined;
  }

  /** A frame not sent (held back by a refusal): the video stream's next frame must then be a keyframe. */
  skipped(input: FrameInput): void {
    if (input.video) this.keyframeWanted = true;
  }

  /** How long the gateway's last refusal still holds the next frame back, ms (0: it may go). */
  heldMs(): number {
    return Math.max(0, this.holdUntil - this.now());
  }

  /** Resolves when the gateway's hello arrived, or after `ms` without it. */
  async waitForHello(ms = 2000): Promise<HelloMessage | undefined> {
    await this.client?.waitForHello(ms);
    return this.hello;
  }

  private onEvent(event: WireEvent): void {
    if (event.kind === 'close') {
      this.closeCode = event.code;
      this.closeText = event.reason;
      this.closeReason ??=
        this.client?.error?.message ?? `closed by the gateway (${event.code}${event.reason.length ? ` ${event.reason}` : ''})`;
      this.failAll(this.closeReason);
      return;
    }
    const answeredAt = this.now();
    const bytesDown = event.bytes + wsHeaderBytes(event.bytes, false);
    if (event.kind === 'unreadable') {
      // An answer we cannot read: charge it to the oldest frame so the count stays honest.
      const oldest = this.pending.keys().next();
      if (oldest.done) {
        this.unmatched++;
        return;
      }
      const entry = this.pending.get(oldest.value)!;
      this.settle(oldest.value, {
        outcome: 'error',
        latencyMs: answeredAt - entry.startedAt,
        bytesUp: entry.bytesUp,
        bytesDown,
        errorCode: 'undecodable_reply',
        errorMessage: event.problem,
      });
      return;
    }
    const message = event.message;
    if (message.type === 'hello') {
      this.hello = message;
      this.rateCap = new RateCap(message.limits.maxMessagesPerSecond);
      return;
    }
    if (message.type === 'pong') {
      const ping = this.pings.get(message.id);
      if (ping) {
        this.pings.delete(message.id);
        clearTimeout(ping.timer);
        ping.resolve(answeredAt - ping.startedAt);
      }
      return;
    }
    if (message.type === 'keyframe') {
      this.keyframeWanted = true;
      return;
    }
    // An error without an id (the gateway could not read ours) belongs to the oldest frame in flight.
    const id = message.id ?? this.pending.keys().next().value;
    const entry = id === undefined ? undefined : this.pending.get(id);
    if (!entry || id === undefined) {
      this.unmatched++;
      return;
    }
    this.settle(id, resultFromReply(message, answeredAt - entry.startedAt, entry.bytesUp, bytesDown));
  }

  private settle(id: number, result: FrameReport): void {
    const entry = this.pending.get(id);
    if (!entry) return;
    this.pending.delete(id);
    clearTimeout(entry.timer);
    if (result.retryAfterMs !== undefined && this.options.honourRetryAfter !== false)
      this.holdUntil = Math.max(this.holdUntil, this.now() + result.retryAfterMs);
    // Behind a load balancer, which replica had the frame (failed and timed-out ones included).
    const instance = this.hello?.instance;
    entry.resolve(instance === undefined ? result : { ...result, instance });
  }

  private failAll(reason: string): void {
    for (const [id, entry] of [...this.pending]) {
      this.settle(id, {
        outcome: 'failed',
        latencyMs: Number.NaN,
        bytesUp: entry.bytesUp,
        bytesDown: 0,
        errorCode: 'connection_lost',
        errorMessage: reason,
      });
    }
    for (const [id, ping] of [...this.pings]) {
      this.pings.delete(id);
      clearTimeout(ping.timer);
      ping.resolve(undefined);
    }
  }

  /**
   * Sends one frame; resolves with its answer, `timeout`, or `failed`. Latency runs from just before encoding
   * to the decoded answer; `startedAt` may be given to start the clock earlier (short mode: before connecting;
   * open loop: when the frame was due).
   */
  request(input: FrameInput, startedAt = this.now()): Promise<FrameReport> {
    const client = this.client;
    if (!client?.open) {
      return Promise.resolve({
        outcome: 'failed',
        latencyMs: Number.NaN,
        bytesUp: 0,
        bytesDown: 0,
        errorCode: 'connection_lost',
        errorMessage: this.closeReason ?? 'not connected',
      });
    }
    const id = this.nextId++;
    const message = messageFor(input, id, startedAt);
    if (this.options.model !== undefined) message.model = this.options.model;
    if (this.options.threshold !== undefined) message.threshold = this.options.threshold;
    if (input.video?.key) this.keyframeWanted = false;
    return new Promise<FrameReport>((resolve) => {
      // The answer cannot come before this turn ends: the frame is registered right after it goes out.
      const data = client.send(message, this.options.codec, (error) => {
        if (error)
          this.settle(id, {
            outcome: 'failed',
            latencyMs: Number.NaN,
            bytesUp,
            bytesDown: 0,
            errorCode: 'send_failed',
            errorMessage: error.message,
          });
      });
      const payloadBytes = typeof data === 'string' ? Buffer.byteLength(data, 'utf8') : data.byteLength;
      const bytesUp = payloadBytes + wsHeaderBytes(payloadBytes, true);
      const timer = setTimeout(
        () =>
          this.settle(id, {
            outcome: 'timeout',
            latencyMs: Number.NaN,
            bytesUp,
            bytesDown: 0,
            errorCode: 'timeout',
            errorMessage: `no answer within ${this.options.timeoutMs} ms`,
          }),
        this.options.timeoutMs,
      );
      this.pending.set(id, { startedAt, bytesUp, timer, resolve });
    });
  }

  /** One ping/pong round trip in ms, or undefined when no pong came within the timeout. */
  ping(): Promise<number | undefined> {
    const client = this.client;
    if (!client?.open) return Promise.resolve(undefined);
    const id = this.nextPingId++;
    const startedAt = this.now();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pings.delete(id);
        resolve(undefined);
      }, this.options.timeoutMs);
      this.pings.set(id, { startedAt, resolve, timer });
      client.send({ type: 'ping', id, ts: startedAt }, this.options.codec);
    });
  }

  /**
   * Stops reading from the TCP socket (a client that no longer reads its answers): the kernel's buffers
   * fill, then the gateway's. Sending still works.
   */
  pauseReading(): void {
    this.client?.pauseReading();
  }

  resumeReading(): void {
    this.client?.resumeReading();
  }

  get inFlight(): number {
    return this.pending.size;
  }

  /** Closes with a normal close handshake (bounded wait), then drops the socket. */
  close(waitMs = 2000): Promise<void> {
    return this.client?.close(waitMs) ?? Promise.resolve();
  }
}
