/**
 * One WebSocket to a gateway, from Node: the client every package that talks to a gateway over its wire
 * builds on (the gateway's own tests, the deploy failover test, the benchmark client, the fuzz runner,
 * the reliability scenarios). Only the fuzz cases made of hand-built frames, which no WebSocket library
 * would send, go around it.
 *
 * Every message the gateway sends is parsed and validated once, on arrival. A valid one is `received`; one
 * that is not a server message of this protocol is kept as `unreadable` with the reason, never thrown, so
 * the caller can judge it. Events are recorded in order and can be waited for by predicate or taken one at
 * a time (`next`); a long run turns recording off and reads them through `onEvent` instead. What is sent
 * goes out byte for byte: a text message is not checked for UTF-8, for the cases that must not be.
 */
import net from 'node:net';
import tls from 'node:tls';
import WebSocket from 'ws';
import { encodeMessage, parseWire, type WireData } from '@sightline/shared/codec';
import type { ClientMessage, Codec, HelloMessage, ServerMessage } from '@sightline/shared/protocol';
import { validateServerMessage } from '@sightline/shared/validation';
import { wsUrl } from './ws-url.ts';

/** A valid server message. `at` is performance.now() on arrival, before decoding. */
export interface Received {
  kind: 'message';
  message: ServerMessage;
  codec: Codec;
  /** Payload bytes. */
  bytes: number;
  at: number;
}

/** A message that is not a server message of this protocol: what it parsed to (if anything), and why not. */
export interface Unreadable {
  kind: 'unreadable';
  value: unknown;
  problem: string;
  codec: Codec;
  bytes: number;
  at: number;
}

/** The connection closed: the code and reason of the close frame (1006 when there was none). */
export interface Closed {
  kind: 'close';
  code: number;
  reason: string;
  at: number;
}

export type WireEvent = Received | Unreadable | Closed;

export interface WireClientOptions {
  /** Sent with the upgrade request (e.g. `Authorization: Bearer ...`). */
  headers?: Record<string, string>;
  /** For a wss:// URL: which certificate to trust, or not to check it. */
  tls?: tls.ConnectionOptions;
  handshakeTimeoutMs?: number;
  /**
   * Keep every event (`events`, `received`), for waiting on them and taking them with `next`: on by
   * default. Off, events only reach `onEvent`, so a client that runs for minutes holds nothing.
   */
  record?: boolean;
  /** Sees every event as it happens, from the first one (the hello may arrive before `connect` resolves). */
  onEvent?: (event: WireEvent, client: WireClient) => void;
}

export interface SendOptions {
  /** A text message (the JSON codec's) instead of a binary one; by default, text for a string. */
  text?: boolean;
  /** Called once the message was written, or with the error that kept it from being written. */
  onSent?: (error?: Error) => void;
}

export class WireClient {
  /** Everything that happened, in order (when recording). */
  readonly events: WireEvent[] = [];
  /** The valid messages among them, the hello included. */
  readonly received: Received[] = [];
  closeEvent: Closed | undefined;
  /** The first error the socket reported (a reset, a write to a closed peer, a frame that breaks RFC 6455). */
  error: Error | undefined;
  /** performance.now() when this side saw the connection end: the first error or the close. */
  endedAt: number | undefined;
  /** TCP (and TLS) connect time, ms: from creating the socket to its connect event. */
  connectMs = Number.NaN;
  /** From the start of connecting to the completed upgrade, ms. */
  handshakeMs = Number.NaN;

  private helloEvent: Received | undefined;
  private socket: net.Socket | undefined;
  private readonly waiters = new Set<() => void>();
  /** The next event `next` hands out. */
  private cursor = 0;

  private constructor(
    private readonly ws: WebSocket,
    private readonly options: WireClientOptions,
  ) {
    ws.binaryType = 'nodebuffer';
    ws.on('message', (data: Buffer, isBinary: boolean) => this.take(decode(data, isBinary, performance.now())));
    ws.on('close', (code, reason) => this.take({ kind: 'close', code, reason: reason.toString(), at: performance.now() }));
    // A refused upgrade rejects `connect`; anything later ends in 'close'. Either way it is kept, never thrown.
    ws.on('error', (error) => this.failed(error));
  }

  /**
   * Opens a WebSocket to `url`: a gateway's base URL (http(s)://host:port) or a WebSocket URL taken as it is.
   * Resolves once the upgrade completed; the hello may still be on its way.
   */
  static connect(url: string, options: WireClientOptions = {}): Promise<WireClient> {
    const target = wsUrl(url);
    const secure = target.startsWith('wss:');
    const started = performance.now();
    let socket: net.Socket | undefined;
    let connectStart = Number.NaN;
    let connectedAt = Number.NaN;
    const ws = new WebSocket(target, {
      perMessageDeflate: false, // the protocol's own bytes on the wire, not zlib's
      headers: options.headers ?? {},
      ...(options.handshakeTimeoutMs ? { handshakeTimeout: options.handshakeTimeoutMs } : {}),
      // ws' own connection, but timed, and kept to pause it and count its bytes.
      createConnection: (opts: net.NetConnectOpts & tls.ConnectionOptions & { socketPath?: string }) => {
        connectStart = performance.now();
        // As ws does: the HTTP `path` is not a socket path.
        const s = secure
          ? tls.connect({ ...opts, path: undefined, ...options.tls } as tls.ConnectionOptions)
          : net.connect({ ...opts, path: opts.socketPath } as net.NetConnectOpts);
        s.once(secure ? 'secureConnect' : 'connect', () => (connectedAt = performance.now()));
        socket = s;
        return s;
      },
    } as WebSocket.ClientOptions);
    const client = new WireClient(ws, options);
    return new Promise((resolve, reject) => {
      const onError = (error: Error) => reject(new Error(`WebSocket to ${target} failed: ${error.message}`, { cause: error }));
      ws.once('error', onError);
      ws.once('open', () => {
        ws.off('error', onError);
        client.socket = socket;
        // ws turns a socket error into a close (1006); the error itself (ECONNRESET, EPIPE) is only seen here.
        socket?.on('error', (error) => client.failed(error));
        client.connectMs = connectedAt - connectStart;
        client.handshakeMs = performance.now() - started;
        resolve(client);
      });
    });
  }

  get open(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  /** The gateway's hello, once it arrived. */
  get greeting(): HelloMessage | undefined {
    return this.helloEvent?.message as HelloMessage | undefined;
  }

  /** Bytes the socket wrote and read so far, the upgrade included. */
  get socketBytes(): { written: number; read: number } {
    return { written: this.socket?.bytesWritten ?? 0, read: this.socket?.bytesRead ?? 0 };
  }

  /** Encodes one message and sends it in its codec's frame type; returns what went out (to count its bytes). */
  send(message: ClientMessage, codec: Codec, onSent?: (error?: Error) => void): WireData {
    const data = encodeMessage(message, codec);
    this.sendRaw(data, { text: codec === 'json', ...(onSent ? { onSent } : {}) });
    return data;
  }

  /** Sends `data` as one message, byte for byte. */
  sendRaw(data: string | Uint8Array, { text = typeof data === 'string', onSent }: SendOptions = {}): void {
    this.ws.send(data, { binary: !text }, onSent);
  }

  /** Resolves true once `done()` holds (checked now and after every event), false after `timeoutMs`. */
  until(done: () => boolean, timeoutMs: number): Promise<boolean> {
    if (done()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const finish = (result: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(result);
      };
      const check = () => {
        if (done()) finish(true);
      };
      const timer = setTimeout(() => finish(done()), timeoutMs);
      this.waiters.add(check);
    });
  }

  /** As `until`, but a timeout throws, saying what was received. */
  async waitFor(done: () => boolean, timeoutMs = 30_000): Promise<void> {
    if (await this.until(done, timeoutMs)) return;
    const seen = this.events.map((e) =>
      e.kind === 'message' ? e.message : e.kind === 'close' ? `close ${e.code} ${e.reason}` : e.problem,
    );
    throw new Error(`timed out after ${timeoutMs} ms; received: ${JSON.stringify(seen).slice(0, 1000)}`);
  }

  /** The next event not taken yet (recording clients), or undefined after `timeoutMs` without one. */
  async next(timeoutMs: number): Promise<WireEvent | undefined> {
    if (!(await this.until(() => this.cursor < this.events.length, timeoutMs))) return undefined;
    return this.events[this.cursor++];
  }

  /** Messages answering request `id`: frames' answers, pongs, errors naming it (recording clients). */
  answersTo(id: number): Received[] {
    return this.received.filter((r) => r.message.type !== 'hello' && 'id' in r.message && r.message.id === id);
  }

  /** Waits for the first answer to request `id` and returns it. */
  async answer(id: number, timeoutMs = 30_000): Promise<Received> {
    await this.waitFor(() => this.answersTo(id).length > 0, timeoutMs);
    return this.answersTo(id)[0]!;
  }

  /** Waits for the hello the gateway sends first on every connection. */
  async hello(timeoutMs = 30_000): Promise<Received> {
    await this.waitFor(() => this.helloEvent !== undefined, timeoutMs);
    return this.helloEvent!;
  }

  /** The hello once it arrived; undefined if the connection closed first or `timeoutMs` passed. */
  async waitForHello(timeoutMs: number): Promise<HelloMessage | undefined> {
    await this.until(() => this.helloEvent !== undefined || this.closeEvent !== undefined, timeoutMs);
    return this.greeting;
  }

  /** Stops reading the TCP socket, as a client that no longer reads its answers: the buffers fill up. */
  pauseReading(): void {
    this.socket?.pause();
  }

  resumeReading(): void {
    this.socket?.resume();
  }

  /** Drops the connection without a close handshake. */
  terminate(): void {
    this.ws.terminate();
  }

  /** Closes with a normal close handshake, waiting for it at most `waitMs`; then drops the socket. */
  close(waitMs = 2000, reason = ''): Promise<void> {
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
      if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.close(1000, reason);
    });
  }

  private failed(error: Error): void {
    this.error ??= error;
    this.endedAt ??= performance.now();
    if (this.waiters.size > 0) for (const wake of [...this.waiters]) wake();
  }

  private take(event: WireEvent): void {
    if (event.kind === 'message' && event.message.type === 'hello') this.helloEvent ??= event;
    if (event.kind === 'close') {
      this.closeEvent = event;
      this.endedAt ??= event.at;
    }
    if (this.options.record !== false) {
      this.events.push(event);
      if (event.kind === 'message') this.received.push(event);
    }
    this.options.onEvent?.(event, this);
    if (this.waiters.size > 0) for (const wake of [...this.waiters]) wake();
  }
}

function decode(data: Buffer, isBinary: boolean, at: number): Received | Unreadable {
  const codec: Codec = isBinary ? 'msgpack' : 'json';
  const bytes = data.byteLength;
  let value: unknown;
  try {
    value = parseWire(isBinary ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : data.toString('utf8'), codec);
    return { kind: 'message', message: validateServerMessage(value), codec, bytes, at };
  } catch (error) {
    // `value` is still undefined when the bytes did not parse at all.
    return { kind: 'unreadable', value, problem: error instanceof Error ? error.message : String(error), codec, bytes, at };
  }
}
