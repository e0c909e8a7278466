import { describe, expect, it } from 'vitest';
import type { SwitchableConnection } from '../../../src/app/link-switch.ts';
import { TransportLinks } from '../../../src/app/transport-links.ts';
import { Signal } from '../../../src/events/signal.ts';
import type { ConnectionStatus } from '../../../src/transport/gateway-socket.ts';
import { hello } from '../../support/gateway-messages.ts';

const LTE = { spec: 'lte', label: 'LTE · 40 ms RTT ±4, ↓29.5 ↑7.6 Mbit/s, emulated' };
const LOSSY = 'delay=20ms,loss=1%';

/** A connection that records the link of every attempt, asking its switch for it as the page's do. */
class FakeConnection implements SwitchableConnection {
  readonly statusChanged = new Signal<ConnectionStatus>();
  readonly linkRefused = new Signal<{ spec: string; reason: string }>();
  status: ConnectionStatus = { state: 'closed', attempt: 0 };
  readonly attempts: string[] = [];
  running = false;
  target: () => string = () => 'none';
  start(): void {
    this.running = true;
    this.reconnect();
  }
  reconnect(): void {
    // A stopped peer makes no session; its next start asks for the link then.
    if (!this.running) return;
    this.attempts.push(this.target());
    this.set({ state: 'connecting', attempt: 0 });
  }
  retryNow(): void {
    if (this.status.state === 'reconnecting') this.reconnect();
  }
  /** The gateway refused the link the attempt asked for: it failed, and says so. */
  refuse(reason: string): void {
    const spec = this.attempts.at(-1)!;
    this.set({ state: 'reconnecting', attempt: 1, lastError: reason });
    this.linkRefused.emit({ spec, reason });
  }
  greet(link?: { spec: string; label: string }): void {
    this.set({ state: 'open', attempt: 0, hello: { ...hello, ...(link ? { link } : {}) } });
  }
  private set(status: ConnectionStatus): void {
    this.status = status;
    this.statusChanged.emit(status);
  }
}

function setup(initial?: string) {
  const socket = new FakeConnection();
  const peer = new FakeConnection();
  let socketInFlight = 0;
  let peerInFlight = 0;
  const socketSettled = new Signal<void>();
  const peerSettled = new Signal<void>();
  const links = new TransportLinks({
    websocket: { connection: socket, inFlight: () => socketInFlight, settled: socketSettled, onThisMachine: true },
    webrtc: { connection: peer, inFlight: () => peerInFlight, settled: peerSettled, onThisMachine: true },
    ...(initial === undefined ? {} : { initial }),
  });
  socket.target = () => links.websocket.target;
  peer.target = () => links.webrtc.target;
  let changes = 0;
  links.changed.subscribe(() => changes++);
  return {
    links,
    socket,
    peer,
    changes: () => changes,
    setPeerInFlight: (n: number) => (peerInFlight = n),
    settlePeer: (left: number) => {
      peerInFlight = left;
      peerSettled.emit();
    },
    setSocketInFlight: (n: number) => (socketInFlight = n),
  };
}

describe('TransportLinks', () => {
  it('starts each connection behind the link chosen at page load, the WebSocket behind the nearest it can run', () => {
    const h = setup(LOSSY);
    expect(h.links.websocket.target).toBe('delay=20ms');
    expect(h.links.webrtc.target).toBe(LOSSY);
  });

  it('puts the connection frames go on behind the link chosen, and leaves the idle one as it is', () => {
    const h = setup();
    h.socket.start();
    h.socket.greet();
    h.links.follow('none', 'websocket');
    h.links.follow('lte', 'websocket');
    expect(h.socket.attempts).toEqual(['none', 'lte']);
    expect(h.links.webrtc.target).toBe('none');
    expect(h.links.state).toMatchObject({ via: 'websocket', target: 'lte', switching: true });
    h.socket.greet(LTE);

    // WebRTC chosen: the peer's switch takes the link before the peer starts, so its first session asks for it.
    const before = h.changes();
    h.links.follow('lte', 'data-channel');
    expect(h.changes()).toBeGreaterThan(before);
    expect(h.links.state).toMatchObject({ via: 'webrtc', target: 'lte', switching: true, inForce: { spec: 'none' } });
    h.peer.start();
    expect(h.peer.attempts).toEqual(['lte']);
    h.peer.greet(LTE);
    expect(h.links.state).toMatchObject({ via: 'webrtc', switching: false, inForce: { spec: 'lte', emulated: true } });

    // Another link on WebRTC: a new session once the data channel's frames are answered; the socket stays.
    h.setPeerInFlight(1);
    h.links.follow(LOSSY, 'track');
    expect(h.links.holding).toBe(true);
    expect(h.peer.attempts).toEqual(['lte']);
    h.settlePeer(0);
    expect(h.links.holding).toBe(false);
    expect(h.peer.attempts).toEqual(['lte', LOSSY]);
    expect(h.socket.attempts).toEqual(['none', 'lte']);
  });

  it('runs a link with loss on the WebSocket without its loss', () => {
    const h = setup();
    h.socket.start();
    h.socket.greet();
    h.links.follow(LOSSY, 'websocket');
    expect(h.socket.attempts).toEqual(['none', 'delay=20ms']);
    expect(h.links.state.target).toBe('delay=20ms');
  });

  it('asks again only when the link or the transport changed: settings pushed for another reason keep a refusal', () => {
    const h = setup('lte');
    h.socket.start();
    h.links.follow('lte', 'data-channel');
    h.peer.start();
    h.peer.refuse('link emulation is only for clients on this machine, or with the access token');
    expect(h.peer.attempts).toEqual(['lte', 'none']);
    expect(h.links.state).toMatchObject({ target: 'none', refusal: { spec: 'lte', instead: 'none', cause: 'stated' } });
    // The page pushes its settings again (another setting changed) before it follows the refusal: nothing is asked.
    h.links.follow('lte', 'data-channel');
    expect(h.peer.attempts).toEqual(['lte', 'none']);
    expect(h.links.state).toMatchObject({ target: 'none', refusal: { spec: 'lte' } });
    // It follows it: still nothing to ask.
    h.links.follow('none', 'data-channel');
    expect(h.peer.attempts).toEqual(['lte', 'none']);
    expect(h.links.state.refusal).toBeDefined();
  });

  it("labels each connection's figures with its own link, and knows every link either ran behind", () => {
    const h = setup();
    h.socket.start();
    h.socket.greet();
    h.links.follow('lte', 'data-channel');
    h.peer.start();
    h.peer.greet(LTE);
    expect(h.links.inForceOn('webrtc')).toMatchObject({ spec: 'lte', emulated: true });
    expect(h.links.inForceOn('websocket')).toMatchObject({ spec: 'none', emulated: false });
    expect(h.links.seen().map((link) => link.spec)).toEqual(['none', 'lte']);
    // The WebSocket's frames do not hold WebRTC's.
    h.setSocketInFlight(3);
    expect(h.links.holding).toBe(false);
  });
});
