/**
 * One WebSocket to the gateway: opens it (timing TCP connect and upgrade), records the `hello`, sends frames
 * and pings and matches the answers by id. Used by the serial, pipelined and short-connection drivers.
 */
import net from 'node:net';
import tls from 'node:tls';
import WebSocket from 'ws';
import { decodeServerMessage, encodeMessage } from '@sightline/shared/codec';
import {
  PROTOCOL_QUERY_PARAM,
  PROTOCOL_VERSION,
  WS_PATH,
  type Codec,
  type DetectionsMessage,
  type FrameMessage,
  type HelloMessage,
  type ServerMessage,
} from '@sightline/shared/protocol';
import { authHeaders, tlsOptions, unauthorizedHint, type ClientAccess } from '../access.ts';
import { RateCap } from '../pacing.ts';
import type { FrameInput, FrameResult } from '../types.ts';

export interface WsConnectionOptions {
  /** Gateway base URL, http(s)://host:port. */
  baseUrl: string;
  codec: Codec;
  timeoutMs: number;
  model?: string | undefined;
  threshold?: number | undefined;
  /** Token and certificate trust, for a gateway that asks for them. */
  access?: ClientAccess | undefined;
}

/** Bytes of a WebSocket frame header for a payload of `length` bytes (client frames carry a 4-byte mask). */
export function wsHeaderBytes(length: number, masked: boolean): number {
  return (length < 126 ? 2 : length < 65_536 ? 4 : 10) + (masked ? 4 : 0);
}

export function wsUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.pathname = url.pathname.replace(/\/+$/, '') + WS_PATH;
  url.searchParams.set(PROTOCOL_QUERY_PARAM, String(PROTOCOL_VERSION));
  return url.toString();
}

interface Pending {
  startedAt: number;
  bytesUp: number;
  timer: NodeJS.Timeout;
  resolve: (result: FrameResult) => void;
}

export function resultFromReply(message: ServerMessage, latencyMs: number, bytesUp: number, bytesDown: number): FrameResult {
  switch (message.type) {
    case 'detections':
      return detectionsResult(message, latencyMs, bytesUp, bytesDown);
    case 'dropped':
      return { outcome: 'dropped', latencyMs, bytesUp, bytesDown, errorCode: message.reason };
    case 'error':
      return { outcome: 'error', latencyMs, bytesUp, bytesDown, errorCode: message.code, errorMessage: message.message };
    default:
      return { outcome: 'error', latencyMs, bytesUp, bytesDown, errorCode: 'unexpected', errorMessage: `unexpected ${message.type}` };
  }
}

export function detectionsResult(
  message: Pick<DetectionsMessage, 'detections' | 'timings'>,
  latencyMs: number,
  bytesUp: number,
  bytesDown: number,
): FrameResult {
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

export class WsConnection {
  hello: HelloMessage | undefined;
  /** TCP connect time (ms): from creating the socket to its connect event. */
  connectMs = Number.NaN;
  /** From the start of connecting to the completed upgrade (ms). */
  handshakeMs = Number.NaN;
  /** Answers that matched no pending frame (late after a timeout, or unknown ids). */
  unmatched = 0;
  closeReason: string | undefined;
  /** The close code and reason as received (1006 when the connection dropped without a close frame). */
  closeCode: number | undefined;
  closeText: string | undefined;

  private readonly pending = new Map<number, Pending>();
  private readonly pings = new Map<number, { startedAt: number; resolve: (rtt: number | undefined) => void; timer: NodeJS.Timeout }>();
  private nextId = 1;
  private nextPingId = 1;
  private socket: net.Socket | undefined;
  private helloWaiters: Array<() => void> = [];
  private rateCap = new RateCap(undefined);

  private constructor(
    private readonly ws: WebSocket,
    private readonly options: WsConnectionOptions,
  ) {}

  /** Connects; resolves once the upgrade completed (the hello may still be on its way). */
  static open(options: WsConnectionOptions): Promise<WsConnection> {
    const started = performance.now();
    let socket: net.Socket | undefined;
    let connectStart = Number.NaN;
    let connectedAt = Number.NaN;
    const secure = options.baseUrl.startsWith('https:');
    const ws = new WebSocket(wsUrl(options.baseUrl), {
      perMessageDeflate: false, // measure the protocol's bytes, not zlib's
      handshakeTimeout: Math.max(options.timeoutMs, 10_000),
      headers: authHeaders(options.access),
      createConnection: (opts: net.NetConnectOpts & tls.ConnectionOptions & { socketPath?: string }) => {
        connectStart = performance.now();
        // Same as ws' own: the HTTP `path` is not a socket path.
        const s = secure
          ? tls.connect({ ...opts, path: undefined, ...tlsOptions(options.access) } as tls.ConnectionOptions)
          : net.connect({ ...opts, path: opts.socketPath } as net.NetConnectOpts);
        s.once(secure ? 'secureConnect' : 'connect', () => (connectedAt = performance.now()));
        socket = s;
        return s;
      },
    } as WebSocket.ClientOptions);
    ws.binaryType = 'nodebuffer';
    const connection = new WsConnection(ws, options);
    return new Promise((resolve, reject) => {
      const onError = (error: Error) => {
        const hint = / 401\b/.test(error.message) ? ` (${unauthorizedHint(options.access?.token)})` : '';
        reject(new Error(`WebSocket to ${wsUrl(options.baseUrl)} failed: ${error.message}${hint}`));
      };
      ws.once('error', onError);
      ws.once('open', () => {
        ws.off('error', onError);
        connection.socket = socket;
        connection.connectMs = connectedAt - connectStart;
        connection.handshakeMs = performance.now() - started;
        connection.attach();
        resolve(connection);
      });
    });
  }

  get alive(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  /** Bytes the socket wrote / read so far, all messages and the upgrade included. */
  get socketBytes(): { written: number; read: number } {
    return { written: this.socket?.bytesWritten ?? 0, read: this.socket?.bytesRead ?? 0 };
  }

  /** Resolves when the next frame may go out under the gateway's message-rate limit (at once when well under it). */
  whenSendAllowed(): Promise<void> | undefined {
    const waitMs = this.rateCap.claim(performance.now());
    return waitMs > 0 ? new Promise((resolve) => setTimeout(resolve, waitMs)) : undefined;
  }

  /** Resolves when the gateway's hello arrived, or after `ms` without it. */
  waitForHello(ms = 2000): Promise<HelloMessage | undefined> {
    if (this.hello || !this.alive) return Promise.resolve(this.hello);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(this.hello), ms);
      this.helloWaiters.push(() => {
        clearTimeout(timer);
        resolve(this.hello);
      });
    });
  }

  private attach(): void {
    this.ws.on('message', (data: Buffer, isBinary: boolean) => this.onMessage(data, isBinary));
    this.ws.on('error', (error) => (this.closeReason ??= error.message));
    this.ws.on('close', (code, reason) => {
      this.closeCode = code;
      this.closeText = reason.toString();
      this.closeReason ??= `closed by the gateway (${code}${reason.length ? ` ${reason.toString()}` : ''})`;
      this.failAll(this.closeReason);
    });
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    const receivedAt = performance.now();
    const bytesDown = data.byteLength + wsHeaderBytes(data.byteLength, false);
    let message: ServerMessage;
    try {
      message = decodeServerMessage(isBinary ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : data.toString('utf8'));
    } catch (error) {
      // An answer we cannot read: charge it to the oldest frame so the count stays honest.
      const oldest = this.pending.keys().next();
      if (!oldest.done) {
        this.settle(oldest.value, {
          outcome: 'error',
          latencyMs: receivedAt - this.pending.get(oldest.value)!.startedAt,
          bytesUp: this.pending.get(oldest.value)!.bytesUp,
          bytesDown,
          errorCode: 'undecodable_reply',
          errorMessage: error instanceof Error ? error.message : String(error),
        });
      } else this.unmatched++;
      return;
    }
    const decodedAt = performance.now();
    if (message.type === 'hello') {
      this.hello = message;
      this.rateCap = new RateCap(message.limits.maxMessagesPerSecond);
      for (const wake of this.helloWaiters.splice(0)) wake();
      return;
    }
    if (message.type === 'pong') {
      const ping = this.pings.get(message.id);
      if (ping) {
        this.pings.delete(message.id);
        clearTimeout(ping.timer);
        ping.resolve(receivedAt - ping.startedAt);
      }
      return;
    }
    // An error without an id (the gateway could not read ours) belongs to the oldest frame in flight.
    const id = message.id ?? this.pending.keys().next().value;
    const entry = id === undefined ? undefined : this.pending.get(id);
    if (!entry || id === undefined) {
      this.unmatched++;
      return;
    }
    this.settle(id, resultFromReply(message, decodedAt - entry.startedAt, entry.bytesUp, bytesDown));
  }

  private settle(id: number, result: FrameResult): void {
    const entry = this.pending.get(id);
    if (!entry) return;
    this.pending.delete(id);
    clearTimeout(entry.timer);
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
    for (const wake of this.helloWaiters.splice(0)) wake();
  }

  /**
   * Sends one frame; resolves with its answer, `timeout`, or `failed`. Latency runs from just before encoding
   * to the decoded answer; `startedAt` may be given to start the clock earlier (short mode: before connecting).
   */
  request(input: FrameInput, startedAt = performance.now()): Promise<FrameResult> {
    if (!this.alive) {
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
    const message: FrameMessage = { type: 'frame', id, ts: startedAt, image: input.bytes };
    if (this.options.model !== undefined) message.model = this.options.model;
    if (this.options.threshold !== undefined) message.threshold = this.options.threshold;
    let payloadBytes: number;
    let data: string | Uint8Array;
    if (this.options.codec === 'json') {
      data = encodeMessage(message, 'json');
      payloadBytes = Buffer.byteLength(data, 'utf8');
    } else {
      data = encodeMessage(message, 'msgpack');
      payloadBytes = data.byteLength;
    }
    const bytesUp = payloadBytes + wsHeaderBytes(payloadBytes, true);
    return new Promise<FrameResult>((resolve) => {
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
      this.ws.send(data, { binary: this.options.codec === 'msgpack' }, (error) => {
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
    });
  }

  /** One ping/pong round trip in ms, or undefined when no pong came within the timeout. */
  ping(): Promise<number | undefined> {
    if (!this.alive) return Promise.resolve(undefined);
    const id = this.nextPingId++;
    const startedAt = performance.now();
    const data = encodeMessage({ type: 'ping', id, ts: startedAt }, this.options.codec);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pings.delete(id);
        resolve(undefined);
      }, this.options.timeoutMs);
      this.pings.set(id, { startedAt, resolve, timer });
      this.ws.send(data, { binary: this.options.codec === 'msgpack' });
    });
  }

  /**
   * Stops reading from the TCP socket (a client that no longer reads its answers): the kernel's buffers
   * fill, then the gateway's. Sending still works.
   */
  pauseReading(): void {
    this.socket?.pause();
  }

  resumeReading(): void {
    this.socket?.resume();
  }

  get inFlight(): number {
    return this.pending.size;
  }

  /** Closes with a normal close handshake (bounded wait), then drops the socket. */
  close(waitMs = 2000): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.ws.terminate();
        resolve();
      }, waitMs);
      this.ws.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.close(1000);
    });
  }
}
