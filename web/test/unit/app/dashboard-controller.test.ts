/**
 * The composition root, wired as in the page: real units, with only the browser's edges faked (the
 * WebSocket, fetch, the window). No media is attached, so no frame is ever sent: these tests are about
 * what connects to what.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { decodeClientMessage, encodeMessage } from '@sightline/shared/codec';
import { CLOSE_CODES, PROTOCOL_VERSION, type ModelsResponse } from '@sightline/shared/protocol';
import { DashboardController, type DashboardOptions } from '../../../src/app/dashboard-controller.ts';
import { MODELS_REFRESH_MS } from '../../../src/app/models-loader.ts';
import { PONG_WAIT_MS } from '../../../src/app/ping-schedule.ts';
import { DEFAULT_SETTINGS } from '../../../src/app/settings.ts';
import { modelInfo } from '../../support/models.ts';
import { hello } from '../../support/gateway-messages.ts';
import { FakePeer } from '../../support/fake-peer.ts';

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

const models: ModelsResponse = { protocol: PROTOCOL_VERSION, defaultModel: 'ssd', models: [] };

function setup(options?: DashboardOptions) {
  FakeWebSocket.all.length = 0;
  const page = Object.assign(new EventTarget(), {
    location: { protocol: 'http:', host: 'gateway.test', hostname: 'gateway.test', origin: 'http://gateway.test' },
  });
  vi.stubGlobal('window', page);
  vi.stubGlobal('WebSocket', FakeWebSocket);
  let served = models;
  const fetch = vi.fn(async () => new Response(JSON.stringify(served)));
  vi.stubGlobal('fetch', fetch);
  const controller = new DashboardController(options);
  controller.updateSettings({ ...DEFAULT_SETTINGS, ...(options?.link ? { link: options.link } : {}) });
  let published = 0;
  controller.subscribe(() => published++);
  return {
    controller,
    page,
    socket: () => FakeWebSocket.all.at(-1)!,
    published: () => published,
    /** What GET /api/models answers from now on, and how often it was asked. */
    serve: (next: ModelsResponse) => (served = next),
    modelRequests: () => fetch.mock.calls.length,
  };
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

  it('names the camera chosen on the socket, and reconnects once naming another', async () => {
    const h = setup({ camera: 'door-1' });
    h.controller.updateSettings({ ...DEFAULT_SETTINGS, camera: 'door-1' });
    h.controller.start();
    expect(h.socket().url).toBe(`ws://gateway.test/ws?protocol=${PROTOCOL_VERSION}&camera=door-1`);
    h.socket().greet();
    h.controller.updateSettings({ ...DEFAULT_SETTINGS, camera: 'door-1', codec: 'json' });
    expect(FakeWebSocket.all).toHaveLength(1);
    h.controller.updateSettings({ ...DEFAULT_SETTINGS, camera: 'yard' });
    expect(FakeWebSocket.all).toHaveLength(2);
    expect(FakeWebSocket.all[0]!.closeCode).toBe(CLOSE_CODES.normal);
    expect(new URL(h.socket().url).searchParams.get('camera')).toBe('yard');
    // The default camera: no parameter at all.
    h.controller.updateSettings({ ...DEFAULT_SETTINGS });
    expect(new URL(h.socket().url).searchParams.has('camera')).toBe(false);
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

  it('keeps the model list current while open and asks again when greeted after a reconnect', async () => {
    const h = setup();
    h.controller.start();
    h.socket().greet();
    await settle();
    expect(h.modelRequests()).toBe(1);
    // A model dropped into the gateway's models directory shows up without a reload.
    const grown: ModelsResponse = { ...models, models: [modelInfo({ name: 'my-yolo', default: false })] };
    h.serve(grown);
    await settle(MODELS_REFRESH_MS);
    expect(h.modelRequests()).toBe(2);
    // The refresh falls on a ping's beat: the view is rebuilt once the pong wait is over (no pong comes here).
    await settle(PONG_WAIT_MS);
    expect(h.controller.getSnapshot().models.response).toEqual(grown);
    // The picker getting focus asks at once.
    h.controller.refreshModels();
    expect(h.modelRequests()).toBe(3);
    await settle();
    // A gateway restarted (maybe with other models): greeted again, the list is asked for again.
    h.socket().drop();
    await settle();
    const before = h.modelRequests();
    h.page.dispatchEvent(new Event('online'));
    h.socket().greet();
    expect(h.modelRequests()).toBe(before + 1);
    h.controller.stop();
  });

  it('reads the model list again at once when the gateway answers that a model is unknown', async () => {
    const h = setup();
    h.controller.start();
    h.socket().greet();
    await settle();
    expect(h.modelRequests()).toBe(1);
    h.socket().receive(encodeMessage({ type: 'error', id: 3, code: 'unknown_model', message: 'unknown model "my-yolo"' }, 'json'));
    expect(h.modelRequests()).toBe(2);
    // Other errors are not about the list.
    await settle();
    h.socket().receive(encodeMessage({ type: 'error', id: 4, code: 'bad_image', message: 'not an image' }, 'json'));
    expect(h.modelRequests()).toBe(2);
    h.controller.stop();
  });

  it('says so when the model chosen left the list', async () => {
    const h = setup();
    h.controller.start();
    h.controller.modelLost({ name: 'my-yolo', reason: 'the file is not an ONNX model' }, modelInfo({ title: 'SSDLite' }));
    await settle();
    expect(h.controller.getSnapshot().notices).toMatchObject([
      {
        code: 'model_gone',
        message: '“my-yolo” is no longer served by the gateway: the file is not an ONNX model. Using SSDLite instead.',
      },
    ]);
    h.controller.stop();
  });

  describe('behind an emulated link', () => {
    const lte = { spec: 'lte', label: 'LTE · 40 ms RTT ±4, ↓29.5 ↑7.6 Mbit/s, emulated' };
    const greetBehind = (socket: FakeWebSocket, link?: typeof lte) => {
      socket.readyState = 1;
      socket.onopen?.({} as Event);
      socket.receive(encodeMessage({ ...hello, ...(link ? { link } : {}) }, 'json'));
    };
    /** Answers the ping just sent on `socket`, `ms` later. */
    const pong = async (socket: FakeWebSocket, ms: number) => {
      const ping = decodeClientMessage(socket.sent.at(-1)!, 'msgpack');
      if (ping.type !== 'ping') throw new Error('not a ping');
      await settle(ms);
      socket.receive(encodeMessage({ type: 'pong', id: ping.id, ts: ping.ts, serverTs: 0 }, 'msgpack'));
      await settle(20);
    };

    it('connects behind the link chosen first, and labels what it measures with the link hello names', async () => {
      const h = setup({ link: 'lte' });
      h.controller.start();
      expect(FakeWebSocket.all.map((socket) => new URL(socket.url).searchParams.get('link'))).toEqual(['lte']);
      greetBehind(h.socket(), lte);
      await settle(1000);
      await pong(h.socket(), 45);
      expect(h.controller.getSnapshot()).toMatchObject({ link: { inForce: { ...lte, emulated: true }, switching: false }, pingMs: 45 });

      // Another link: a new connection, no link asked for; until it pings, no round trip of the new link is shown.
      h.controller.updateSettings({ ...DEFAULT_SETTINGS, link: 'none' });
      expect(FakeWebSocket.all).toHaveLength(2);
      expect(new URL(h.socket().url).searchParams.has('link')).toBe(false);
      greetBehind(h.socket());
      await settle(20);
      expect(h.controller.getSnapshot()).toMatchObject({ link: { inForce: { spec: 'none', emulated: false } } });
      expect(h.controller.getSnapshot().pingMs).toBeUndefined();
      h.controller.stop();
    });

    it('goes back to the link it ran behind when the gateway refuses a link on the upgrade but answers HTTP', async () => {
      const h = setup();
      const access = { exposed: true, secure: false, tokenRequired: false, local: [], network: [] };
      vi.stubGlobal(
        'fetch',
        vi.fn(async (url: string) => new Response(JSON.stringify(String(url).includes('access') ? access : models))),
      );
      h.controller.start();
      greetBehind(h.socket());
      h.controller.updateSettings({ ...DEFAULT_SETTINGS, link: 'lte' });
      h.socket().drop();
      await settle();
      expect(h.controller.getSnapshot().link).toMatchObject({
        target: 'none',
        refusal: { spec: 'lte', instead: 'none', cause: 'not-this-machine' },
      });
      expect(FakeWebSocket.all.map((socket) => new URL(socket.url).searchParams.get('link'))).toEqual([null, 'lte', null]);
      h.controller.stop();
    });
  });

  describe('over WebRTC behind an emulated link', () => {
    const lte = { spec: 'lte', label: 'LTE · 40 ms RTT ±4, ↓29.5 ↑7.6 Mbit/s, emulated' };
    const threeG = { spec: '3g', label: '3G · 64 ms RTT ±8, ↓5.9 ↑2 Mbit/s, emulated' };

    /** The gateway's WHIP endpoint (and the models): each session a Location; `refuse` answers a POST that asks for a link. */
    function whipGateway(refuse?: { status: number; body: object }) {
      const requests: { method: string; url: string }[] = [];
      let sessions = 0;
      const fetch = vi.fn(async (input: string, init?: RequestInit) => {
        const url = String(input);
        const method = init?.method ?? 'GET';
        if (!url.includes('/whip')) return new Response(JSON.stringify(models));
        requests.push({ method, url });
        if (method === 'OPTIONS' || method === 'DELETE') return new Response(null, { status: method === 'OPTIONS' ? 204 : 200 });
        if (method === 'GET') return new Response('{}', { status: 404 });
        if (refuse && url.includes('link=')) return new Response(JSON.stringify(refuse.body), { status: refuse.status });
        return new Response(`answer ${++sessions}`, { status: 201, headers: { location: `/whip/s${sessions}` } });
      });
      vi.stubGlobal('fetch', fetch);
      vi.stubGlobal('RTCPeerConnection', FakePeer);
      FakePeer.all.length = 0;
      return { requests, posts: () => requests.filter((request) => request.method === 'POST').map((request) => request.url) };
    }

    /** Lets a session's requests and the peer's promises run (pre-flight, offer, POST, answer). */
    async function negotiate() {
      for (let i = 0; i < 5; i++) await settle();
    }

    /** The browser finishes gathering and the gateway answers; then the `frames` channel opens with the gateway's hello. */
    async function establish(link?: { spec: string; label: string }) {
      await negotiate();
      FakePeer.all.at(-1)!.gathered();
      await negotiate();
      const channel = FakePeer.all.at(-1)!.channel('frames');
      channel.readyState = 'open';
      channel.receive(encodeMessage({ ...hello, ...(link ? { link } : {}) }, 'json'));
      await settle();
      return channel;
    }

    const webrtc = { ...DEFAULT_SETTINGS, transport: 'webrtc' as const, codec: 'msgpack' as const };

    it('names the camera on each WHIP session, and makes a new session for another camera', async () => {
      const h = setup();
      const gateway = whipGateway();
      h.controller.updateSettings({ ...webrtc, camera: 'door-1' });
      h.controller.start();
      h.socket().greet();
      await establish();
      expect(gateway.posts()).toEqual(['http://gateway.test/whip?camera=door-1']);
      h.controller.updateSettings({ ...webrtc, camera: 'yard' });
      await establish();
      expect(gateway.posts()).toEqual(['http://gateway.test/whip?camera=door-1', 'http://gateway.test/whip?camera=yard']);
      h.controller.stop();
    });

    it("asks for the link chosen on each WHIP session, makes a new one for another link, and labels with the peer's hello", async () => {
      const h = setup({ link: 'lte' });
      const gateway = whipGateway();
      h.controller.updateSettings({ ...webrtc, link: 'lte' });
      h.controller.start();
      h.socket().greet();
      const channel = await establish(lte);
      expect(gateway.posts()).toEqual(['http://gateway.test/whip?link=lte']);
      expect(h.controller.getSnapshot()).toMatchObject({
        link: { via: 'webrtc', inForce: { ...lte, emulated: true }, target: 'lte', switching: false },
        measuredOn: { spec: 'lte', emulated: true },
      });

      // The ping goes on the peer's channel, and its round trip is labelled with the peer's link.
      await settle(1000);
      const ping = decodeClientMessage(channel.sent.at(-1) as Uint8Array, 'msgpack');
      if (ping.type !== 'ping') throw new Error('not a ping');
      await settle(45);
      channel.receive(encodeMessage({ type: 'pong', id: ping.id, ts: ping.ts, serverTs: 0 }, 'msgpack'));
      await settle(20);
      expect(h.controller.getSnapshot().pingMs).toBe(45);

      // Another link: the session is ended and a new one asks for it; the socket beside it is left as it is.
      h.controller.updateSettings({ ...webrtc, link: '3g' });
      await settle();
      expect(h.controller.getSnapshot().link).toMatchObject({ via: 'webrtc', target: '3g', switching: true });
      await establish(threeG);
      expect(
        gateway.requests
          .filter((request) => request.method === 'POST' || request.method === 'DELETE')
          .map((request) => `${request.method} ${request.url}`),
      ).toEqual(['POST http://gateway.test/whip?link=lte', 'DELETE http://gateway.test/whip/s1', 'POST http://gateway.test/whip?link=3g']);
      expect(h.controller.getSnapshot()).toMatchObject({ link: { inForce: { spec: '3g' }, switching: false }, measuredOn: { spec: '3g' } });
      expect(h.controller.getSnapshot().pingMs).toBeUndefined();
      expect(FakeWebSocket.all).toHaveLength(1);
      h.controller.stop();
    });

    it('goes back to the link it ran behind when the gateway refuses one, with the reason it gave', async () => {
      const reason = 'link emulation is only for clients on this machine, or with the access token';
      const h = setup({ link: 'lte' });
      const gateway = whipGateway({ status: 403, body: { error: '403', reason } });
      h.controller.updateSettings({ ...webrtc, link: 'lte' });
      h.controller.start();
      h.socket().greet();
      await negotiate();
      FakePeer.all.at(-1)!.gathered();
      await negotiate();
      expect(h.controller.getSnapshot().link).toMatchObject({
        via: 'webrtc',
        target: 'none',
        refusal: { spec: 'lte', instead: 'none', cause: 'stated', detail: reason },
      });
      // Retried at once, asking for no link.
      await establish();
      expect(gateway.posts()).toEqual(['http://gateway.test/whip?link=lte', 'http://gateway.test/whip']);
      expect(h.controller.getSnapshot()).toMatchObject({ connection: { state: 'open' }, measuredOn: { spec: 'none', emulated: false } });
      h.controller.stop();
    });
  });
});
