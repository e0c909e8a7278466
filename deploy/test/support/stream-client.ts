/**
 * A client that streams frames as the dashboard does, through a load balancer: up to `window` frames in
 * flight (the dashboard's K in flight), each answer followed after a pause by the next frame, and a
 * reconnect (with a little jitter) whenever the connection closes, each connection the shared wire client
 * (`@sightline/harness/client`). Every connection is recorded as a session: which gateway served it
 * (`hello.instance`), what was sent, what was answered, how it closed.
 *
 * Each frame is followed by a ping. The gateway reads a connection's messages in order and answers a ping
 * at once, so a pong proves that every frame sent before its ping was read: those frames must be
 * answered, even by a gateway that is shutting down. A frame sent after the last pong may have crossed
 * the gateway's close on the wire and never been read; it is counted apart.
 */
import { WireClient, type WireEvent } from '@sightline/harness/client';
import { WS_PATH } from '@sightline/shared/protocol';

/** What a frame got: `detections`, `dropped:<reason>` or `error:<code>`. */
export type Answer = string;

export interface Session {
  client: number;
  /** The gateway that served it, from its hello. */
  instance: string;
  /** performance.now() of the hello. */
  openedAt: number;
  closedAt: number | undefined;
  closeCode: number | undefined;
  /** Closed by the other side (gateway or proxy), not by the client stopping. */
  closedByPeer: boolean;
  /** Frame ids in the order sent. */
  sent: number[];
  /** Frame id -> what it got, and performance.now() on arrival. */
  answers: Map<number, { answer: Answer; at: number }>;
  /** The last frame id whose following ping was answered: every frame up to it was read by the gateway. */
  readUpTo: number;
}

export interface Reconnect {
  client: number;
  from: string;
  to: string;
  closeCode: number;
  /** From the close of the old connection to the hello of the new one. */
  ms: number;
}

export interface StreamClientOptions {
  /** Pause between an answer and the next frame. */
  thinkMs: number;
  /** Frames in flight at most. */
  window: number;
}

export class StreamClient {
  readonly sessions: Session[] = [];
  readonly reconnects: Reconnect[] = [];
  private socket: WireClient | undefined;
  private current: Session | undefined;
  private nextId = 1;
  private readonly outstanding = new Set<number>();
  private stopping = false;
  private lastClose: { at: number; code: number; from: string } | undefined;
  private onHello: (() => void) | undefined;
  private onIdle: (() => void) | undefined;

  constructor(
    readonly index: number,
    private readonly baseUrl: string,
    private readonly image: Uint8Array,
    private readonly options: StreamClientOptions,
  ) {}

  /** Connects and starts streaming; resolves at the first hello. */
  start(): Promise<void> {
    return new Promise((resolve) => {
      this.onHello = resolve;
      this.connect();
    });
  }

  get session(): Session | undefined {
    return this.current;
  }

  /** Stops sending, waits (bounded) for the frame in flight to be answered, then closes. */
  async stop(timeoutMs = 30_000): Promise<void> {
    this.stopping = true;
    const socket = this.socket;
    if (this.outstanding.size > 0 && socket?.open) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        this.onIdle = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    await socket?.close(timeoutMs, 'done');
  }

  private connect(): void {
    if (this.stopping) return;
    let session: Session | undefined;
    const onEvent = (event: WireEvent, socket: WireClient) => {
      if (event.kind === 'close') return this.closed(session, event.code, event.at);
      // Not a message of the protocol: nothing a frame can be charged with.
      if (event.kind !== 'message') return;
      const message = event.message;
      if (message.type === 'hello') {
        session = {
          client: this.index,
          instance: message.instance ?? '?',
          openedAt: event.at,
          closedAt: undefined,
          closeCode: undefined,
          closedByPeer: false,
          sent: [],
          answers: new Map(),
          readUpTo: 0,
        };
        this.sessions.push(session);
        this.current = session;
        if (this.lastClose) {
          const { at, code, from } = this.lastClose;
          this.reconnects.push({ client: this.index, from, to: session.instance, closeCode: code, ms: session.openedAt - at });
          this.lastClose = undefined;
        }
        this.onHello?.();
        this.onHello = undefined;
        const opened = session;
        for (let i = 0; i < this.options.window; i++)
          setTimeout(() => this.sendFrame(socket, opened), (i * this.options.thinkMs) / this.options.window);
      } else if (!session) {
        return;
      } else if (message.type === 'pong') {
        session.readUpTo = Math.max(session.readUpTo, message.id);
      } else if (message.type !== 'keyframe') {
        const answer =
          message.type === 'dropped' ? `dropped:${message.reason}` : message.type === 'error' ? `error:${message.code}` : message.type;
        if (message.id === undefined) return;
        session.answers.set(message.id, { answer, at: event.at });
        if (!this.outstanding.delete(message.id)) return;
        if (this.stopping) {
          if (this.outstanding.size === 0) this.onIdle?.();
          return;
        }
        const current = session;
        setTimeout(() => this.sendFrame(socket, current), this.options.thinkMs);
      }
    };
    WireClient.connect(`${this.baseUrl}${WS_PATH}`, { record: false, onEvent }).then(
      (socket) => (this.socket = socket),
      // Refused or reset before the upgrade: the close that follows tries again.
      () => undefined,
    );
  }

  private closed(session: Session | undefined, code: number, at: number): void {
    this.outstanding.clear();
    this.onIdle?.();
    if (session) {
      session.closedAt = at;
      session.closeCode = code;
      session.closedByPeer = !this.stopping;
    }
    if (this.stopping) return;
    // A connection that never got its hello (refused) is retried without counting as a session.
    if (session) this.lastClose = { at, code, from: session.instance };
    setTimeout(() => this.connect(), 20 + Math.random() * 60);
  }

  private sendFrame(socket: WireClient, session: Session): void {
    if (this.stopping || !socket.open || this.outstanding.size >= this.options.window) return;
    const id = this.nextId++;
    this.outstanding.add(id);
    session.sent.push(id);
    socket.send({ type: 'frame', id, ts: Date.now(), image: this.image }, 'msgpack');
    socket.send({ type: 'ping', id, ts: Date.now() }, 'msgpack');
  }
}

/** Frames of a session by what became of them. */
export function tally(session: Session): { answered: number; mustAnswer: number; unansweredRead: number[]; crossedClose: number } {
  const unansweredRead = session.sent.filter((id) => id <= session.readUpTo && !session.answers.has(id));
  const crossedClose = session.sent.filter((id) => id > session.readUpTo && !session.answers.has(id)).length;
  return {
    answered: session.answers.size,
    mustAnswer: session.sent.filter((id) => id <= session.readUpTo).length,
    unansweredRead,
    crossedClose,
  };
}
