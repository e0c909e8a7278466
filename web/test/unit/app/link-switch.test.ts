import { describe, expect, it } from 'vitest';
import { isThisMachine, LinkSwitch, type SwitchableConnection } from '../../../src/app/link-switch.ts';
import { Signal } from '../../../src/events/signal.ts';
import type { ConnectionStatus } from '../../../src/transport/gateway-socket.ts';
import { hello } from '../../support/gateway-messages.ts';

const LTE_LABEL = 'LTE · 40 ms RTT ±4, ↓29.5 ↑7.6 Mbit/s, emulated';

/** A connection (socket or WebRTC peer) as the switch drives it: it connects behind whatever link the switch holds when told. */
class FakeSocket implements SwitchableConnection {
  readonly statusChanged = new Signal<ConnectionStatus>();
  /** WHIP's refusals, which name the link and the reason (a WebSocket has none: see probe). */
  readonly linkRefused = new Signal<{ spec: string; reason: string }>();
  status: ConnectionStatus = { state: 'closed', attempt: 0 };
  /** The link of every connection attempt, in order. */
  readonly attempts: string[] = [];
  constructor(private readonly target: () => string) {}
  private set(status: ConnectionStatus): void {
    this.status = status;
    this.statusChanged.emit(status);
  }
  start(): void {
    this.reconnect();
  }
  reconnect(): void {
    this.attempts.push(this.target());
    this.set({ state: 'connecting', attempt: 0 });
  }
  retryNow(): void {
    this.attempts.push(this.target());
    this.set({ state: 'reconnecting', attempt: this.status.attempt });
  }
  /** The gateway greets the connection, naming the link it runs behind (none: no `link` in hello). */
  greet(link?: { spec: string; label: string }): void {
    this.set({ state: 'open', attempt: 0, hello: { ...hello, ...(link ? { link } : {}) } });
  }
  /** The attempt ended: `unreachable` when it never became a WebSocket (refused upgrade, or nothing there). */
  fail(closedAt: 'unreachable' | 'accepted' | 'greeted'): void {
    this.set({ state: 'reconnecting', attempt: this.status.attempt + 1, closedAt, lastError: 'gateway unreachable (code 1006)' });
  }
}

function setup(
  options: { initial?: string; onThisMachine?: boolean; gatewayUp?: boolean; tokenRequired?: boolean; via?: 'websocket' | 'webrtc' } = {},
) {
  let inFlight = 0;
  const settled = new Signal<void>();
  const probes: number[] = [];
  // The socket asks the switch for the link at every attempt, as the page's does (its URL function).
  const socket: FakeSocket = new FakeSocket(() => links.target);
  const via = options.via ?? 'websocket';
  const links: LinkSwitch = new LinkSwitch({
    via,
    connection: socket,
    inFlight: () => inFlight,
    settled,
    // Only the WebSocket needs to ask: WHIP says why it refuses.
    ...(via === 'websocket'
      ? {
          probe: () => {
            probes.push(probes.length);
            return Promise.resolve(options.gatewayUp === false ? undefined : { tokenRequired: options.tokenRequired ?? false });
          },
        }
      : {}),
    onThisMachine: options.onThisMachine ?? true,
    ...(options.initial ? { initial: options.initial } : {}),
  });
  const changes: unknown[] = [];
  links.changed.subscribe((state) => changes.push(state));
  return {
    links,
    socket,
    probes,
    changes,
    setInFlight: (n: number) => (inFlight = n),
    settle: (left: number) => {
      inFlight = left;
      settled.emit();
    },
  };
}

describe('LinkSwitch', () => {
  it('connects behind the initial link, and takes what hello names as the link in force', () => {
    const h = setup({ initial: 'lte' });
    h.socket.start();
    expect(h.socket.attempts).toEqual(['lte']);
    expect(h.links.state).toMatchObject({ inForce: { spec: 'none', emulated: false }, target: 'lte', switching: true });
    h.socket.greet({ spec: 'lte', label: LTE_LABEL });
    expect(h.links.state).toEqual({
      via: 'websocket',
      inForce: { spec: 'lte', label: LTE_LABEL, emulated: true },
      target: 'lte',
      switching: false,
    });
    expect(h.links.seen().map((link) => link.spec)).toEqual(['none', 'lte']);
  });

  it('is hello that says the link, not the request: a gateway that names none runs none', () => {
    const h = setup({ initial: 'lte' });
    h.socket.start();
    h.socket.greet();
    expect(h.links.state).toMatchObject({ inForce: { spec: 'none' }, target: 'lte', switching: false });
  });

  it('switches at once when no frame is out, and waits for the frames out, holding new ones, when some are', () => {
    const h = setup();
    h.socket.start();
    h.socket.greet();
    h.links.request('3g');
    expect(h.socket.attempts).toEqual(['none', '3g']);
    h.socket.greet({ spec: '3g', label: '3G …' });
    h.setInFlight(2);
    h.links.request('lte');
    expect(h.links.holding).toBe(true);
    expect(h.links.state.switching).toBe(true);
    expect(h.socket.attempts).toHaveLength(2);
    h.settle(1);
    expect(h.socket.attempts).toHaveLength(2);
    h.settle(0);
    expect(h.links.holding).toBe(false);
    expect(h.socket.attempts).toEqual(['none', '3g', 'lte']);
    // Until the new connection's hello, the figures stay labelled with the old link.
    expect(h.links.state).toMatchObject({ inForce: { spec: '3g' }, target: 'lte', switching: true });
  });

  it('going back to the link in force before the switch happened cancels it', () => {
    const h = setup();
    h.socket.start();
    h.socket.greet();
    h.setInFlight(1);
    h.links.request('lte');
    h.links.request('none');
    expect(h.links.holding).toBe(false);
    expect(h.links.state.switching).toBe(false);
    h.settle(0);
    expect(h.socket.attempts).toEqual(['none']);
  });

  it('a link asked for again changes nothing', () => {
    const h = setup();
    h.socket.start();
    h.socket.greet();
    h.links.request('none');
    expect(h.changes).toHaveLength(1);
    expect(h.socket.attempts).toEqual(['none']);
  });

  it('a link refused on the upgrade while the gateway answers HTTP goes back to the last link greeted, and says so', async () => {
    const h = setup({ onThisMachine: false });
    h.socket.start();
    h.socket.greet({ spec: '3g', label: '3G …' });
    h.links.request('lte');
    h.socket.fail('unreachable');
    await Promise.resolve();
    expect(h.probes).toHaveLength(1);
    expect(h.links.state).toMatchObject({
      target: '3g',
      switching: true,
      refusal: { id: 1, spec: 'lte', instead: '3g', cause: 'not-this-machine', detail: 'gateway unreachable (code 1006)' },
    });
    expect(h.socket.attempts).toEqual(['none', 'lte', '3g']);
    h.socket.greet({ spec: '3g', label: '3G …' });
    expect(h.links.state).toMatchObject({ target: '3g', switching: false, refusal: { spec: 'lte' } });
    // Another choice clears the refusal.
    h.links.request('none');
    expect(h.links.state.refusal).toBeUndefined();
  });

  it('names no cause it cannot tell: on this machine, or with a token in force', async () => {
    for (const options of [{ onThisMachine: true }, { onThisMachine: false, tokenRequired: true }]) {
      const h = setup({ ...options, initial: 'lte' });
      h.socket.start();
      h.socket.fail('unreachable');
      await Promise.resolve();
      expect(h.links.state).toMatchObject({ target: 'none', refusal: { spec: 'lte', instead: 'none', cause: 'unknown' } });
    }
  });

  it('a gateway that is down is an outage, not a refusal: it keeps asking for the link chosen', async () => {
    const h = setup({ initial: 'lte', gatewayUp: false });
    h.socket.start();
    h.socket.fail('unreachable');
    await Promise.resolve();
    expect(h.probes).toHaveLength(1);
    expect(h.links.state).toMatchObject({ target: 'lte' });
    expect(h.links.state.refusal).toBeUndefined();
  });

  it('does not suspect the link when the connection got as far as the gateway, or when it asks for the link already greeted', async () => {
    const h = setup({ initial: 'lte' });
    h.socket.start();
    h.socket.fail('accepted');
    h.socket.greet({ spec: 'lte', label: LTE_LABEL });
    h.socket.fail('greeted');
    h.socket.fail('unreachable');
    await Promise.resolve();
    expect(h.probes).toHaveLength(0);
  });
});

describe('LinkSwitch on a WebRTC peer', () => {
  it('makes a new session behind another link once the frames out are answered, and labels with its hello', () => {
    const h = setup({ via: 'webrtc' });
    h.socket.start();
    h.socket.greet();
    h.setInFlight(1);
    h.links.request('lte');
    expect(h.links.state).toMatchObject({ via: 'webrtc', target: 'lte', switching: true });
    expect(h.socket.attempts).toEqual(['none']);
    h.settle(0);
    expect(h.socket.attempts).toEqual(['none', 'lte']);
    h.socket.greet({ spec: 'lte', label: LTE_LABEL });
    expect(h.links.state).toMatchObject({ inForce: { spec: 'lte', emulated: true }, switching: false });
  });

  it('goes back to the last link greeted when the gateway refuses one, saying its reason, and retries at once', () => {
    const h = setup({ via: 'webrtc', initial: 'lte' });
    h.socket.start();
    h.socket.fail('unreachable');
    const reason = 'link emulation is only for clients on this machine, or with the access token';
    h.socket.linkRefused.emit({ spec: 'lte', reason });
    expect(h.probes).toHaveLength(0);
    expect(h.links.state).toMatchObject({
      target: 'none',
      switching: true,
      refusal: { id: 1, spec: 'lte', instead: 'none', cause: 'stated', detail: reason },
    });
    expect(h.socket.attempts).toEqual(['lte', 'none']);
    // A refusal of a link no longer asked for changes nothing.
    h.socket.linkRefused.emit({ spec: '3g', reason });
    expect(h.links.state.refusal?.id).toBe(1);
    expect(h.socket.attempts).toHaveLength(2);
  });
});

describe('isThisMachine', () => {
  it('knows the names of the machine itself', () => {
    for (const host of ['localhost', 'LOCALHOST', 'app.localhost', '127.0.0.1', '127.1.2.3', '[::1]', '::1'])
      expect(isThisMachine(host)).toBe(true);
    for (const host of ['192.168.1.23', 'example.test', '[fe80::1]', '10.127.0.1']) expect(isThisMachine(host)).toBe(false);
  });
});
