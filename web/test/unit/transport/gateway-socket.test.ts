import { describe, expect, it } from 'vitest';
import { encodeMessage } from '@sightline/shared/codec';
import { CLOSE_CODES, PROTOCOL_VERSION } from '@sightline/shared/protocol';
import {
  GatewaySocket,
  type ConnectionStatus,
  type IncomingMessage,
  type ReconnectHints,
  type SocketLike,
} from '../../../src/transport/gateway-socket.ts';
import { CountingTarget } from '../../support/counting-target.ts';
import { FakeClock } from '../../support/fake-clock.ts';
import { hello } from '../../support/gateway-messages.ts';

class FakeSocket implements SocketLike {
  readyState = 0;
  binaryType: BinaryType = 'blob';
  onopen: ((event: Event) => void) | null = null;
  onclose: ((event: CloseEvent) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;
  onmessage: ((event: MessageEvent) => void) | null = null;
  sent: unknown[] = [];
  closed = false;
  closeCode: number | undefined;
  constructor(readonly url: string) {}
  send(data: unknown): void {
    this.sent.push(data);
  }
  close(code?: number): void {
    this.closed = true;
    this.closeCode = code;
    this.readyState = 3;
  }
  open(): void {
    this.readyState = 1;
    this.onopen?.({} as Event);
  }
  drop(code = 1006): void {
    this.readyState = 3;
    this.onclose?.({ code, reason: '' } as CloseEvent);
  }
  receive(data: unknown): void {
    this.onmessage?.({ data } as MessageEvent);
  }
  /** Accepted and greeted, as the gateway does for a connection it keeps. */
  greet(): void {
    this.open();
    this.receive(encodeMessage(hello, 'json'));
  }
}

/** The page's window or document, knowing how many listeners it holds. */
class FakePage extends CountingTarget {
  visibilityState: DocumentVisibilityState = 'visible';
}

function setup(reconnectHints: ReconnectHints = {}) {
  const clock = new FakeClock(5000);
  const sockets: FakeSocket[] = [];
  const statuses: ConnectionStatus[] = [];
  const messages: IncomingMessage[] = [];
  const bad: Error[] = [];
  const gateway = new GatewaySocket({
    url: `ws://test/ws?protocol=${PROTOCOL_VERSION}`,
    createSocket: (url) => {
      const socket = new FakeSocket(url);
      sockets.push(socket);
      return socket;
    },
    backoff: { baseMs: 100, maxMs: 1000, factor: 2, jitter: 0 },
    clock,
    wallClock: () => 1_700_000_000_000 + clock.now(),
    reconnectHints,
  });
  gateway.statusChanged.subscribe((status) => statuses.push(status));
  gateway.messages.subscribe((message) => messages.push(message));
  gateway.unreadable.subscribe((error) => bad.push(error));
  return { clock, gateway, sockets, statuses, messages, bad, last: () => sockets[sockets.length - 1]! };
}

/** A socket started: its first attempt made. */
function started() {
  const h = setup();
  h.gateway.start();
  return h;
}

describe('GatewaySocket', () => {
  it('connects, reports open once greeted, decodes both codecs and sends only while open', () => {
    const h = started();
    expect(h.gateway.status.state).toBe('connecting');
    expect(h.gateway.send('x')).toBe(false);
    h.last().open();
    // Accepted is not open: the gateway may still close it at once.
    expect(h.gateway.status.state).toBe('connecting');
    expect(h.gateway.send('x')).toBe(false);
    expect(h.last().binaryType).toBe('arraybuffer');
    h.last().receive(encodeMessage(hello, 'json'));
    expect(h.gateway.status.state).toBe('open');
    expect(h.gateway.status.hello?.defaultModel).toBe('ssd');
    const pong = encodeMessage({ type: 'pong', id: 1, ts: 2, serverTs: 3 }, 'msgpack');
    h.clock.advance(7);
    h.last().receive(pong.buffer.slice(pong.byteOffset, pong.byteOffset + pong.byteLength));
    expect(h.messages.map((m) => [m.message.type, m.codec])).toEqual([
      ['hello', 'json'],
      ['pong', 'msgpack'],
    ]);
    expect(h.messages[1]).toMatchObject({ bytes: pong.byteLength, receivedAt: 5007 });
    expect(h.gateway.send('frame')).toBe(true);
    expect(h.last().sent).toEqual(['frame']);
  });

  it('reconnects with exponential backoff and resets it once greeted', () => {
    const h = started();
    h.last().drop();
    expect(h.gateway.status).toMatchObject({ state: 'reconnecting', attempt: 1 });
    expect(h.gateway.status.retryAt).toBeDefined();
    h.clock.advance(99);
    expect(h.sockets).toHaveLength(1);
    h.clock.advance(1);
    expect(h.sockets).toHaveLength(2);
    // still "reconnecting" during the retry itself
    expect(h.gateway.status.state).toBe('reconnecting');
    h.last().drop();
    expect(h.gateway.status.attempt).toBe(2);
    h.clock.advance(199);
    expect(h.sockets).toHaveLength(2);
    h.clock.advance(1);
    expect(h.sockets).toHaveLength(3);
    h.last().greet();
    expect(h.gateway.status).toMatchObject({ state: 'open', attempt: 0 });
    h.last().drop();
    h.clock.advance(100);
    expect(h.sockets).toHaveLength(4);
  });

  it('keeps backing off when the gateway accepts and then closes at once (1013, connection limit)', () => {
    const h = started();
    const delays: number[] = [];
    for (let i = 0; i < 4; i++) {
      h.last().open();
      h.last().drop(1013);
      const status = h.gateway.status;
      expect(status).toMatchObject({ state: 'reconnecting', attempt: i + 1 });
      expect(status.lastError).toContain('busy');
      delays.push(status.retryAt! - (1_700_000_000_000 + h.clock.now()));
      h.clock.advance(delays[i]!);
    }
    expect(delays).toEqual([100, 200, 400, 800]);
    // Never reported "open" in between: no flicker of "Connected" for a connection the gateway refused.
    expect(h.statuses.some((status) => status.state === 'open')).toBe(false);
    h.last().greet();
    expect(h.gateway.status).toMatchObject({ state: 'open', attempt: 0 });
  });

  it('stops for good on 4001 (protocol version mismatch) and says so', () => {
    const h = started();
    h.last().open();
    h.last().drop(4001);
    expect(h.gateway.status).toMatchObject({ state: 'closed', versionMismatch: true });
    expect(h.gateway.status.lastError).toContain('4001');
    h.clock.advance(60_000);
    h.gateway.retryNow();
    expect(h.sockets).toHaveLength(1);
    // A later start (e.g. a remount) tries again and clears the flag.
    h.gateway.start();
    expect(h.sockets).toHaveLength(2);
    expect(h.gateway.status.versionMismatch).toBeUndefined();
  });

  it('retryNow skips the wait; stop closes for good', () => {
    const h = started();
    h.last().drop();
    h.gateway.retryNow();
    expect(h.sockets).toHaveLength(2);
    h.last().greet();
    h.gateway.stop();
    expect(h.last().closed).toBe(true);
    expect(h.last().closeCode).toBe(CLOSE_CODES.normal);
    expect(h.gateway.status.state).toBe('closed');
    h.clock.advance(10_000);
    expect(h.sockets).toHaveLength(2);
  });

  it('reports undecodable messages instead of throwing, and closes on a protocol mismatch', () => {
    const h = started();
    h.last().greet();
    h.last().receive('{not json');
    h.last().receive(JSON.stringify({ type: 'detections', id: 1 }));
    expect(h.bad).toHaveLength(2);
    expect(h.messages).toHaveLength(1);
    h.last().receive(encodeMessage({ ...hello, protocol: PROTOCOL_VERSION + 1 }, 'json'));
    expect(h.gateway.status).toMatchObject({ state: 'closed', versionMismatch: true });
    expect(h.last().closeCode).toBe(CLOSE_CODES.protocolMismatch);
    expect(h.gateway.status.lastError).toContain(`protocol ${PROTOCOL_VERSION + 1}`);
    h.clock.advance(60_000);
    expect(h.sockets).toHaveLength(1);
  });

  it('gives up on an attempt that never opens', () => {
    const h = started();
    h.clock.advance(10_000);
    expect(h.gateway.status.state).toBe('reconnecting');
    h.clock.advance(100);
    expect(h.sockets).toHaveLength(2);
  });

  it('gives up on an accepted connection that is never greeted', () => {
    const h = started();
    h.last().open();
    h.clock.advance(10_000);
    expect(h.gateway.status).toMatchObject({ state: 'reconnecting', attempt: 1 });
    expect(h.gateway.status.lastError).toContain('never said hello');
    expect(h.sockets[0]!.closed).toBe(true);
  });
});

describe('GatewaySocket reconnect hints', () => {
  function hinted() {
    const document = new FakePage();
    const window = new FakePage();
    return { ...setup({ document, window }), document, window };
  }

  it('retries at once when the network comes back or the tab is shown again, instead of waiting out the backoff', () => {
    const h = hinted();
    h.gateway.start();
    h.last().drop();
    expect(h.sockets).toHaveLength(1);
    h.window.dispatchEvent(new Event('online'));
    expect(h.sockets).toHaveLength(2);
    h.last().drop();
    h.document.dispatchEvent(new Event('visibilitychange'));
    expect(h.sockets).toHaveLength(3);
  });

  it('ignores hints while the tab is hidden, and while the connection is fine', () => {
    const h = hinted();
    h.gateway.start();
    h.last().greet();
    h.window.dispatchEvent(new Event('online'));
    h.document.dispatchEvent(new Event('visibilitychange'));
    expect(h.sockets).toHaveLength(1);
    h.last().drop();
    h.document.visibilityState = 'hidden';
    h.document.dispatchEvent(new Event('visibilitychange'));
    h.window.dispatchEvent(new Event('online'));
    expect(h.sockets).toHaveLength(1);
    h.clock.advance(100); // the backoff still runs its course
    expect(h.sockets).toHaveLength(2);
  });

  it('listens only between start and stop', () => {
    const h = hinted();
    expect(h.document.listeners + h.window.listeners).toBe(0);
    h.gateway.start();
    h.gateway.start();
    expect(h.document.listeners).toBe(1);
    expect(h.window.listeners).toBe(1);
    h.gateway.stop();
    expect(h.document.listeners + h.window.listeners).toBe(0);
  });
});

describe('GatewaySocket.reconnect (another link)', () => {
  function switching() {
    const clock = new FakeClock(0);
    let link = 'none';
    const sockets: FakeSocket[] = [];
    const statuses: ConnectionStatus[] = [];
    const gateway = new GatewaySocket({
      url: () => `ws://test/ws?link=${link}`,
      createSocket: (url) => {
        const socket = new FakeSocket(url);
        sockets.push(socket);
        return socket;
      },
      backoff: { baseMs: 100, maxMs: 1000, factor: 2, jitter: 0 },
      clock,
      reconnectHints: {},
    });
    gateway.statusChanged.subscribe((status) => statuses.push(status));
    return { clock, gateway, sockets, statuses, setLink: (next: string) => (link = next), last: () => sockets[sockets.length - 1]! };
  }

  it('closes the greeted connection and connects at once to the URL as it is now', () => {
    const h = switching();
    h.gateway.start();
    h.last().greet();
    h.setLink('lte');
    h.gateway.reconnect();
    expect(h.sockets.map((socket) => socket.url)).toEqual(['ws://test/ws?link=none', 'ws://test/ws?link=lte']);
    expect(h.sockets[0]!.closeCode).toBe(CLOSE_CODES.normal);
    // A deliberate switch is no outage: connecting, attempt 0, then open on the new connection.
    expect(h.gateway.status).toMatchObject({ state: 'connecting', attempt: 0 });
    h.last().greet();
    expect(h.statuses.map((status) => status.state)).toEqual(['connecting', 'open', 'connecting', 'open']);
  });

  it('says a connection that never became a WebSocket closed unreachable, and one closed after hello greeted', () => {
    const h = switching();
    h.gateway.start();
    h.last().drop();
    expect(h.gateway.status).toMatchObject({ state: 'reconnecting', closedAt: 'unreachable' });
    h.clock.advance(100);
    h.last().open();
    h.last().drop(CLOSE_CODES.tryAgainLater);
    expect(h.gateway.status).toMatchObject({ state: 'reconnecting', closedAt: 'accepted' });
    h.clock.advance(200);
    h.last().greet();
    expect(h.gateway.status.closedAt).toBeUndefined();
    h.last().drop();
    expect(h.gateway.status).toMatchObject({ state: 'reconnecting', closedAt: 'greeted' });
  });

  it('does nothing once stopped', () => {
    const h = switching();
    h.gateway.reconnect();
    expect(h.sockets).toHaveLength(0);
  });
});
