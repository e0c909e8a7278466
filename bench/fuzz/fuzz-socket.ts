/**
 * One WebSocket to the gateway as the fuzz runner uses it: sends any bytes as a binary or text message
 * (invalid UTF-8 included), hands back the gateway's messages and its close one at a time, and checks the
 * connection still works with a ping whose pong must come back with nothing else in between.
 */
import WebSocket from 'ws';
import { parseWire } from '@sightline/shared/codec';
import { validateServerMessage } from '@sightline/shared/validation';
import { encodeValue } from './wire-input.ts';
import { wsUrl } from '../client/transports/ws-connection.ts';
import type { Observation } from './fuzz-case.ts';

export type SocketEvent =
  | { kind: 'message'; value: Record<string, unknown> | undefined; bytes: number; invalid?: string }
  | { kind: 'close'; code: number; reason: string };

/** A message or close as an outcome of the shared vocabulary (fuzz-case.ts). */
export function observe(event: SocketEvent): Observation {
  if (event.kind === 'close') return { outcome: `close:${event.code}`, message: event.reason };
  const v = event.value ?? {};
  const type = typeof v.type === 'string' ? v.type : 'unreadable';
  const outcome =
    type === 'detections'
      ? 'detections'
      : type === 'dropped'
        ? `dropped:${String(v.reason)}`
        : type === 'error'
          ? `error:${String(v.code)}`
          : `unexpected:${type}`;
  const seen: Observation = { outcome, replyBytes: event.bytes };
  if (typeof v.id === 'number') seen.id = v.id;
  if (typeof v.width === 'number') seen.width = v.width;
  if (typeof v.height === 'number') seen.height = v.height;
  if (typeof v.message === 'string') seen.message = v.message;
  if (event.invalid) seen.invalidReply = event.invalid;
  return seen;
}

function decode(data: Buffer, isBinary: boolean): SocketEvent {
  let value: unknown;
  try {
    value = parseWire(
      isBinary ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : data.toString('utf8'),
      isBinary ? 'msgpack' : 'json',
    );
  } catch (error) {
    return { kind: 'message', value: undefined, bytes: data.byteLength, invalid: error instanceof Error ? error.message : String(error) };
  }
  const event: SocketEvent = {
    kind: 'message',
    value: (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>,
    bytes: data.byteLength,
  };
  try {
    validateServerMessage(value);
  } catch (error) {
    event.invalid = (error instanceof Error ? error.message : String(error)).slice(0, 200);
  }
  return event;
}

export class FuzzSocket {
  hello: Record<string, unknown> | undefined;
  closed: { code: number; reason: string } | undefined;
  private readonly events: SocketEvent[] = [];
  private wake: (() => void) | undefined;

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      const event = decode(data, isBinary);
      if (event.kind === 'message' && event.value?.type === 'hello' && !this.hello) {
        this.hello = event.value;
      } else this.events.push(event);
      this.wake?.();
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      this.events.push({ kind: 'close', ...this.closed });
      this.wake?.();
    });
    // Errors (a reset, a frame ws refuses) end in 'close' too.
    ws.on('error', () => {});
  }

  /** Opens a connection and waits for its hello (bounded). */
  static open(baseUrl: string, timeoutMs: number): Promise<FuzzSocket> {
    const ws = new WebSocket(wsUrl(baseUrl), { perMessageDeflate: false, handshakeTimeout: timeoutMs });
    ws.binaryType = 'nodebuffer';
    const socket = new FuzzSocket(ws);
    return new Promise((resolve, reject) => {
      const fail = (error: Error) => reject(new Error(`WebSocket could not be opened: ${error.message}`));
      ws.once('error', fail);
      ws.once('open', () => {
        ws.off('error', fail);
        void socket
          .until(() => socket.hello !== undefined || socket.closed !== undefined, timeoutMs)
          .then(() => {
            if (socket.hello) resolve(socket);
            else {
              socket.terminate();
              reject(new Error(socket.closed ? `closed at once (${socket.closed.code} ${socket.closed.reason})` : 'no hello'));
            }
          });
      });
    });
  }

  get open(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  /** Sends `data` as one message, byte for byte: a text message is not checked for UTF-8. */
  send(data: Uint8Array, text: boolean): void {
    this.ws.send(data, { binary: !text });
  }

  private until(done: () => boolean, timeoutMs: number): Promise<boolean> {
    if (done()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = undefined;
        resolve(false);
      }, timeoutMs);
      this.wake = () => {
        if (!done()) return;
        clearTimeout(timer);
        this.wake = undefined;
        resolve(true);
      };
    });
  }

  /** The next message or close, skipping pongs; undefined after `timeoutMs` without one. */
  async next(timeoutMs: number): Promise<SocketEvent | undefined> {
    const pending = () => {
      while (this.events.length && this.events[0]!.kind === 'message' && this.events[0]!.value?.type === 'pong') this.events.shift();
      return this.events.length > 0;
    };
    if (!(await this.until(pending, timeoutMs))) return undefined;
    return this.events.shift();
  }

  /**
   * Sends a ping and waits for its pong. Resolves with whatever else arrived first (a second answer to an
   * earlier message, a close), or `timeout`.
   */
  async ping(id: number, codec: 'json' | 'msgpack', timeoutMs: number): Promise<{ ok: boolean; extras: SocketEvent[]; timedOut: boolean }> {
    if (!this.open) return { ok: false, extras: this.events.splice(0), timedOut: false };
    this.send(encodeValue({ type: 'ping', id, ts: 1 }, codec), codec === 'json');
    const extras: SocketEvent[] = [];
    let pong = false;
    const scan = () => {
      while (this.events.length) {
        const event = this.events.shift()!;
        if (event.kind === 'message' && event.value?.type === 'pong' && event.value.id === id) {
          pong = true;
          return true;
        }
        if (event.kind === 'message' && event.value?.type === 'pong') continue;
        extras.push(event);
        if (event.kind === 'close') return true;
      }
      return false;
    };
    const settled = await this.until(scan, timeoutMs);
    return { ok: pong, extras, timedOut: !settled };
  }

  /** Drops the connection without a close handshake. */
  terminate(): void {
    this.ws.terminate();
  }

  /** Closes politely (bounded), for the end of a run. */
  close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.ws.terminate();
        resolve();
      }, 1000);
      this.ws.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      this.ws.close(1000);
    });
  }
}
