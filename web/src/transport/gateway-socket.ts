/**
 * The dashboard's one WebSocket to the gateway: connects, decodes what arrives, and reconnects with
 * exponential backoff and jitter when the connection is lost. It knows nothing about frames.
 *
 * A connection counts as open only once the gateway's `hello` arrived: the gateway accepts every upgrade
 * and then closes at once when it is full (1013) or speaks another protocol (4001), and it sends `hello`
 * only after both checks passed (gateway/src/ws/socket-server.ts). So `hello` is what resets the backoff;
 * an accepted-then-closed socket is one more failed attempt, and 4001 stops reconnecting for good.
 *
 * It also owns the page's hints that a retry may work now (the network came back, the tab is shown
 * again): while it waits out a backoff, such a hint skips the rest of the wait.
 *
 * It publishes its status, the messages it decoded and the ones it could not read; its timers (backoff,
 * connect timeout) run on the injected Clock.
 */
import type { WireData } from '@sightline/shared/codec';
import { CLOSE_CODES, PROTOCOL_VERSION, type HelloMessage } from '@sightline/shared/protocol';
import { Signal } from '../events/signal.ts';
import { browserClock, type Clock, type TimerHandle } from '../time/clock.ts';
import { backoffDelay, DEFAULT_BACKOFF, type BackoffOptions } from './backoff.ts';
import { decodeIncoming, type DecodedMessage } from './incoming-wire.ts';

export type ConnectionState = 'connecting' | 'open' | 'reconnecting' | 'closed';

export interface ConnectionStatus {
  state: ConnectionState;
  /** Failed attempts in a row; 0 once the gateway said hello. */
  attempt: number;
  /** Wall-clock time (Date.now()) of the next attempt while reconnecting. */
  retryAt?: number;
  /** Why the last connection ended or failed, for people. */
  lastError?: string;
  /** The gateway's greeting on the current connection. */
  hello?: HelloMessage;
  /**
   * The gateway speaks another protocol version (closed, no reconnect): only reloading the page, which
   * fetches the dashboard the gateway serves, can fix it.
   */
  versionMismatch?: boolean;
  /**
   * How far the connection that just closed got: `unreachable` (no WebSocket at all: nothing listening, or
   * the upgrade refused with an HTTP status, which a browser does not show), `accepted` (closed before
   * hello), `greeted`. Set while reconnecting after a close.
   */
  closedAt?: ClosePhase;
}

export interface IncomingMessage extends DecodedMessage {
  /** performance.now() when it arrived. */
  receivedAt: number;
}

/**
 * Where the page tells that reconnecting may work now: `online` on the window, `visibilitychange` on the
 * document (a background tab's timers are throttled, so its backoff wait may be far behind). Either one
 * retries only while the page is visible: a hidden tab has no one waiting for it.
 */
export interface ReconnectHints {
  document?: Pick<EventTarget, 'addEventListener' | 'removeEventListener'> & { readonly visibilityState: DocumentVisibilityState };
  window?: Pick<EventTarget, 'addEventListener' | 'removeEventListener'>;
}

/** The page's own document and window; none outside a page. */
function pageHints(): ReconnectHints {
  return {
    document: typeof document === 'undefined' ? undefined : document,
    window: typeof window === 'undefined' ? undefined : window,
  };
}

/** The part of the browser WebSocket this class uses (so tests can hand in a fake). */
export interface SocketLike {
  readonly readyState: number;
  binaryType: BinaryType;
  onopen: ((event: Event) => void) | null;
  onclose: ((event: CloseEvent) => void) | null;
  onerror: ((event: Event) => void) | null;
  onmessage: ((event: MessageEvent) => void) | null;
  send(data: string | ArrayBufferLike | ArrayBufferView): void;
  close(code?: number, reason?: string): void;
}

export interface GatewaySocketOptions {
  /** Where to connect; a function is asked at every attempt (the link the stream runs behind is in its query). */
  url: string | (() => string);
  createSocket?: (url: string) => SocketLike;
  backoff?: BackoffOptions;
  /** Give up on a connection attempt that has not been greeted with `hello` after this long. */
  connectTimeoutMs?: number;
  /** Arrival times and the reconnect timers. Default: the page's. */
  clock?: Clock;
  /** Date.now(): when the next attempt is due, for people. */
  wallClock?: () => number;
  /** Default: the page's document and window. */
  reconnectHints?: ReconnectHints;
}

const CONNECTING = 0;
const OPEN = 1;

export class GatewaySocket {
  /** Every status change (connecting, open once greeted, reconnecting, closed). */
  readonly statusChanged = new Signal<ConnectionStatus>();
  /** Every message decoded, `hello` included (after the status it opened). */
  readonly messages = new Signal<IncomingMessage>();
  /** A message from the gateway that is not valid protocol. */
  readonly unreadable = new Signal<Error>();
  private socket: SocketLike | undefined;
  private retryTimer: TimerHandle | undefined;
  private connectTimer: TimerHandle | undefined;
  private running = false;
  private current: ConnectionStatus = { state: 'closed', attempt: 0 };
  private readonly options: Required<Omit<GatewaySocketOptions, 'url'>>;
  private readonly url: () => string;

  constructor({ url, ...options }: GatewaySocketOptions) {
    this.url = typeof url === 'string' ? () => url : url;
    this.options = {
      createSocket: (url) => new WebSocket(url),
      backoff: DEFAULT_BACKOFF,
      connectTimeoutMs: 10_000,
      clock: browserClock,
      wallClock: () => Date.now(),
      reconnectHints: pageHints(),
      ...options,
    };
  }

  get status(): ConnectionStatus {
    return this.current;
  }

  /** Open and greeted: frames may go. */
  get isOpen(): boolean {
    return this.current.state === 'open' && this.socket?.readyState === OPEN;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    const hints = this.options.reconnectHints;
    hints.document?.addEventListener('visibilitychange', this.onHint);
    hints.window?.addEventListener('online', this.onHint);
    this.connect();
  }

  /** Closes for good (no reconnect) until start() is called again. */
  stop(reason = 'stopped'): void {
    this.running = false;
    const hints = this.options.reconnectHints;
    hints.document?.removeEventListener('visibilitychange', this.onHint);
    hints.window?.removeEventListener('online', this.onHint);
    this.clearTimers();
    this.dropSocket(CLOSE_CODES.normal, reason);
    this.setStatus({ state: 'closed', attempt: 0, lastError: undefined });
  }

  /**
   * Drops the connection and connects anew at once, to the URL as it is now (another link): frames still out
   * on the old connection are settled as lost by whoever follows the status, so drain them first.
   */
  reconnect(): void {
    if (!this.running) return;
    this.clearTimers();
    this.dropSocket(CLOSE_CODES.normal, 'reconnecting');
    this.current = { state: 'connecting', attempt: 0 };
    this.connect();
  }

  /** Skips the rest of the backoff wait. */
  retryNow(): void {
    if (!this.running || this.current.state !== 'reconnecting') return;
    this.clearTimers();
    this.connect();
  }

  private readonly onHint = (): void => {
    if ((this.options.reconnectHints.document?.visibilityState ?? 'visible') === 'visible') this.retryNow();
  };

  /** Sends one encoded message; false when there is no open connection. */
  send(data: WireData): boolean {
    const socket = this.socket;
    if (!socket || socket.readyState !== OPEN || this.current.state !== 'open') return false;
    socket.send(data);
    return true;
  }

  private connect(): void {
    this.dropSocket();
    const attempt = this.current.attempt;
    // A retry after a failure stays "reconnecting" (without retryAt) until it is greeted: one outage, one state.
    this.setStatus({
      ...this.current,
      state: attempt > 0 ? 'reconnecting' : 'connecting',
      retryAt: undefined,
      hello: undefined,
      versionMismatch: undefined,
    });
    let socket: SocketLike;
    try {
      socket = this.options.createSocket(this.url());
    } catch (error) {
      this.scheduleReconnect(error instanceof Error ? error.message : String(error));
      return;
    }
    this.socket = socket;
    socket.binaryType = 'arraybuffer';
    let accepted = false;
    this.connectTimer = this.options.clock.setTimeout(() => {
      if (this.socket === socket && this.current.state !== 'open') {
        this.dropSocket();
        this.scheduleReconnect(accepted ? 'the gateway accepted the connection but never said hello' : 'connection attempt timed out');
      }
    }, this.options.connectTimeoutMs);

    socket.onopen = () => {
      // Not "open" yet: the gateway may still close it at once (full, other protocol). `hello` decides.
      accepted = true;
    };
    socket.onmessage = (event: MessageEvent) => {
      // Arrival time first, before any other work: ping RTTs and frame latencies end here.
      const receivedAt = this.options.clock.now();
      if (this.socket !== socket) return;
      this.handleData(event.data as unknown, receivedAt);
    };
    socket.onerror = () => {
      // The close event that always follows carries the details; nothing to do here.
    };
    socket.onclose = (event: CloseEvent) => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      this.options.clock.clearTimeout(this.connectTimer);
      const phase: ClosePhase = this.current.state === 'open' ? 'greeted' : accepted ? 'accepted' : 'unreachable';
      const reason = describeClose(event, phase);
      if (event.code === CLOSE_CODES.unsupportedProtocol) this.giveUpOnVersion(reason);
      else if (this.running) this.scheduleReconnect(reason, phase);
      else this.setStatus({ state: 'closed', attempt: 0, lastError: reason });
    };
  }

  private handleData(data: unknown, receivedAt: number): void {
    const decoded = decodeIncoming(data, 'WebSocket');
    if (decoded instanceof Error) {
      this.unreadable.emit(decoded);
      return;
    }
    const { message } = decoded;
    if (message.type === 'hello') {
      if (message.protocol !== PROTOCOL_VERSION) {
        this.dropSocket(CLOSE_CODES.protocolMismatch, 'protocol mismatch');
        this.giveUpOnVersion(`gateway speaks protocol ${message.protocol}, this dashboard speaks ${PROTOCOL_VERSION}`);
        return;
      }
      // The gateway accepted this connection for real: only now is the outage over.
      this.options.clock.clearTimeout(this.connectTimer);
      this.setStatus({ state: 'open', attempt: 0, retryAt: undefined, lastError: undefined, hello: message });
    }
    this.messages.emit({ ...decoded, receivedAt });
  }

  /** Retrying cannot help when the versions differ: stop until the page is reloaded (or start() again). */
  private giveUpOnVersion(reason: string): void {
    this.running = false;
    this.clearTimers();
    this.setStatus({ state: 'closed', attempt: 0, lastError: reason, versionMismatch: true });
  }

  private scheduleReconnect(reason: string, closedAt?: ClosePhase): void {
    const attempt = this.current.attempt;
    const { clock } = this.options;
    const delay = backoffDelay(attempt, this.options.backoff);
    this.setStatus({
      state: 'reconnecting',
      attempt: attempt + 1,
      retryAt: this.options.wallClock() + delay,
      lastError: reason,
      hello: undefined,
      ...(closedAt ? { closedAt } : {}),
    });
    clock.clearTimeout(this.retryTimer);
    this.retryTimer = clock.setTimeout(() => {
      this.retryTimer = undefined;
      if (this.running) this.connect();
    }, delay);
  }

  private dropSocket(code?: number, reason?: string): void {
    const socket = this.socket;
    this.socket = undefined;
    if (!socket) return;
    socket.onmessage = null;
    socket.onclose = null;
    socket.onerror = null;
    if (socket.readyState === CONNECTING) {
      // Closing a socket that is still connecting makes the browser log a warning; close it once open.
      socket.onopen = () => {
        try {
          socket.close(code, reason);
        } catch {
          socket.close();
        }
      };
      return;
    }
    socket.onopen = null;
    try {
      socket.close(code, reason);
    } catch {
      // already closing
    }
  }

  private clearTimers(): void {
    this.options.clock.clearTimeout(this.retryTimer);
    this.options.clock.clearTimeout(this.connectTimer);
    this.retryTimer = undefined;
    this.connectTimer = undefined;
  }

  private setStatus(next: ConnectionStatus): void {
    this.current = next;
    this.statusChanged.emit(next);
  }
}

/** How far the connection got before it closed: reached the gateway, and was it greeted? */
export type ClosePhase = 'unreachable' | 'accepted' | 'greeted';

function describeClose(event: CloseEvent, phase: ClosePhase): string {
  const detail = event.reason ? `: ${event.reason}` : '';
  if (event.code === CLOSE_CODES.tryAgainLater) return `gateway busy (code ${event.code}${detail})`;
  if (event.code === CLOSE_CODES.unsupportedProtocol) return `protocol version mismatch (code ${event.code}${detail})`;
  if (phase === 'unreachable') return `gateway unreachable (code ${event.code}${detail})`;
  if (phase === 'accepted') return `gateway closed the connection at once (code ${event.code}${detail})`;
  return `connection lost (code ${event.code}${detail})`;
}
