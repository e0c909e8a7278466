/**
 * The composition root, wired as in the page: real units, with only the browser's edges faked (the
 * WebSocket, fetch, the window). No media is attached, so no frame is ever sent: these tests are about
 * what connects to what.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { decodeClientMessage, encodeMessage } from '@sightline/shared/codec';
import { CLOSE_CODES, PROTOCOL_VERSION, type HelloMessage, type ModelsResponse } from '@sightline/shared/protocol';
import { DashboardController } from '../../../src/app/dashboard-controller.ts';
import { DEFAULT_SETTINGS } from '../../../src/app/settings.ts';

class FakeWebSocket {
  static readonly all: FakeWebSocket[] = [];
  readyState = 0;
  binaryType = 'blob';
  onopen: ((event: Event) => void) | null = null;
  onclose: ((event: CloseEvent) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;
  onmessage: ((event: MessageEvent) => void) | null = null;
  readonly sent: (string | Uint8Array)[] = [];
  closeCode: number | undefined;
  constructor(readonly url: string) {
    FakeWebSocket.all.push(this);
  }
  send(data: string | Uint8Array): void {
    this.sent.push(data);
  }
  close(code?: number): void {
    this.closeCode = code;
    this.readyState = 3;
  }
  greet(): void {
    this.readyState = 1;
    this.onopen?.({} as Event);
    this.receive(encodeMessage(hello, 'json'));
  }
  receive(data: string | Uint8Array): void {
    this.onmessage?.({ data } as MessageEvent);
  }
  drop(): void {
    this.readyState = 3;
    this.onclose?.({ code: 1006, reason: '' } as CloseEvent);
  }
}

const hello: HelloMessage = {
  type: 'hello',
  protocol: PROTOCOL_VERSION,
  defaultModel: 'ssd',
  models: ['ssd'],
  limits: { maxMessageBytes: 1, maxPixels: 1, maxInFlight: 2, queueLength: 2 },
};
const models: ModelsResponse = { protocol: PROTOCOL_VERSION, defaultModel: 'ssd', models: [] };

function setup() {
  FakeWebSocket.all.length = 0;
  const page = Object.assign(new EventTarget(), { location: { protocol: 'http:', host: 'gateway.test' } });
  vi.stubGlobal('window', page);
  vi.stubGlobal('WebSocket', FakeWebSocket);
  vi.stubGlobal(
    'fetch',
    vi.fn(async () => new Response(JSON.stringify(models))),
  );
  const controller = new DashboardController();
  controller.updateSettings(DEFAULT_SETTINGS);
  let published = 0;
  controller.subscribe(() => published++);
  return { controller, page, socket: () => FakeWebSocket.all.at(-1)!, published: () => published };
}

/** Lets the fetch promise settle and every due timer (snapshot rebuilds) run. */
async function settle(ms = 0): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
}

describe('DashboardController', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('connects to the page origin, loads the models, and publishes both', async () => {
    const h = setup();
    h.controller.start();
    expect(h.socket().url).toBe(`ws://gateway.test/ws?protocol=${PROTOCOL_VERSION}`);
    h.socket().greet();
    await settle();
    const snapshot = h.controller.getSnapshot();
    expect(snapshot.connection.state).toBe('open');
    expect(snapshot.models).toEqual({ status: 'ready', response: models });
    // No source attached: the stream waits for one and sends nothing.
    expect(snapshot.phase).toBe('waiting-source');
    h.controller.stop();
  });

  it('pings on the socket every second and shows the round trip as soon as the pong is in', async () => {
    const h = setup();
    h.controller.start();
    h.socket().greet();
    await settle(1000);
    const pings = h.socket().sent.map((data) => decodeClientMessage(data, typeof data === 'string' ? 'json' : 'msgpack'));
    expect(pings).toMatchObject([{ type: 'ping' }]);
    const ping = pings[0]!;
    if (ping.type !== 'ping') throw new Error('not a ping');
    await settle(12);
    h.socket().receive(encodeMessage({ type: 'pong', id: ping.id, ts: ping.ts, serverTs: 0 }, 'msgpack'));
    // Not held back for the rest of the pong wait (PONG_WAIT_MS): the pong is in, the page may render.
    await settle(20);
    expect(h.controller.getSnapshot().pingMs).toBe(12);
    h.controller.stop();
  });

  it('shows gateway errors, and reconnects at once when the page says it is back online', async () => {
    const h = setup();
    h.controller.start();
    h.socket().greet();
    h.socket().receive(encodeMessage({ type: 'error', id: 7, code: 'bad_message', message: 'not a frame' }, 'json'));
    await settle();
    expect(h.controller.getSnapshot().errors).toMatchObject([{ code: 'bad_message', id: 7 }]);
    h.socket().drop();
    await settle();
    expect(h.controller.getSnapshot().connection.state).toBe('reconnecting');
    h.page.dispatchEvent(new Event('online'));
    expect(FakeWebSocket.all).toHaveLength(2);
    h.controller.stop();
  });

  it('stop closes the socket, silences timers and hints; a restart (StrictMode remount) works again', async () => {
    const h = setup();
    h.controller.start();
    h.socket().greet();
    const published = h.published();
    h.controller.stop();
    expect(h.socket().closeCode).toBe(CLOSE_CODES.normal);
    await settle(10_000);
    h.page.dispatchEvent(new Event('online'));
    expect(FakeWebSocket.all).toHaveLength(1);
    expect(h.published()).toBe(published);
    expect(h.socket().sent).toEqual([]);
    h.controller.start();
    expect(FakeWebSocket.all).toHaveLength(2);
    h.socket().greet();
    await settle();
    expect(h.controller.getSnapshot().connection.state).toBe('open');
    h.controller.stop();
  });
});
