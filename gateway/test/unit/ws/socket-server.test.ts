/**
 * The WebSocket endpoint on a plain node:http server on 127.0.0.1 with real clients: which upgrades it
 * refuses and with what status, the connection caps, the protocol and tracking queries, the heartbeat and
 * the drain. Frames go to a stand-in detector whose answers the test releases, so nothing here waits on
 * inference; the heartbeat's interval is a fake timer the test advances, so nothing waits on time either.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { CLOSE_CODES, PROTOCOL_VERSION, type HelloMessage } from '@sightline/shared/protocol';
import { WireClient } from '@sightline/harness/client';
import { createMetrics, type Metrics } from '../../../src/metrics.ts';
import { ReceiveBudget } from '../../../src/scheduling/receive-budget.ts';
import { AccessPolicy } from '../../../src/security/access-policy.ts';
import { attachSocketServer, type SocketServer, type SocketServerOptions } from '../../../src/ws/socket-server.ts';
import { HeldFrames, heldSessionOptions } from '../../support/held-frames.ts';
import { readAnswer, type HttpAnswer } from '../../support/http-answer.ts';

const TOKEN = 'test-token-0123456789';

interface Started {
  server: Server;
  sockets: SocketServer;
  metrics: Metrics;
  port: number;
  url: string;
  /** The server's side of each connection, in the order they were accepted. */
  accepted: WebSocket[];
  /** The stand-in executor: holds every frame until the test answers it. */
  detector: HeldFrames;
}

interface StartOptions extends Partial<SocketServerOptions> {
  token?: string;
}

let started: Started | undefined;
const clients: Array<WireClient | WebSocket> = [];

async function start({ token, ...overrides }: StartOptions = {}): Promise<Started> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const detector = new HeldFrames(4);
  const metrics = createMetrics();
  const sockets = attachSocketServer(server, {
    ...heldSessionOptions(detector, {
      queue: { budgetMs: 60_000, maxWaiting: 100 },
      limits: { maxMessageBytes: 1_000_000, maxPixels: 1e7, maxInFlight: 1, queueLength: 1 },
      instance: 'socket-server-test',
      metrics,
    }),
    maxConnections: 16,
    maxConnectionsPerIp: 16,
    trustProxy: [],
    policy: new AccessPolicy({
      scheme: 'http',
      port,
      token,
      names: { dns: ['localhost'], ips: ['127.0.0.1', '::1'], lan: [] },
      allowedOrigins: [],
      allowedHosts: [],
    }),
    heartbeatMs: 60_000,
    receiveBudget: new ReceiveBudget(64 * 1024 * 1024),
    ...overrides,
  });
  const accepted: WebSocket[] = [];
  sockets.wss.on('connection', (ws: WebSocket) => accepted.push(ws));
  started = {
    server,
    sockets,
    metrics,
    port,
    url: `ws://127.0.0.1:${port}/ws`,
    accepted,
    detector,
  };
  return started;
}

afterEach(async () => {
  vi.useRealTimers();
  for (const client of clients.splice(0)) client.terminate();
  if (!started) return;
  const { server, sockets } = started;
  started = undefined;
  sockets.terminateAll();
  await sockets.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function connect(url: string, headers: Record<string, string> = {}): Promise<WireClient> {
  const client = await WireClient.connect(url, { headers });
  clients.push(client);
  return client;
}

/** A connection the server accepted and then closed at once: its close, and whether a hello came first. */
async function closedAtOnce(client: WireClient): Promise<{ code: number; reason: string; greeted: boolean }> {
  await client.waitFor(() => client.closeEvent !== undefined, 10_000);
  return { code: client.closeEvent!.code, reason: client.closeEvent!.reason, greeted: client.greeting !== undefined };
}

/** One upgrade request, answered by the server with a status (101 when it upgraded), headers and body. */
function upgrade(port: number, path: string, headers: Record<string, string> = {}): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      path,
      agent: false,
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': randomBytes(16).toString('base64'),
        ...headers,
      },
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode!, headers: res.headers, body: '' });
    });
    req.on('response', (res) => readAnswer(res).then(resolve, reject));
    req.on('error', reject);
    req.end();
  });
}

async function closesCounted(metrics: Metrics, reason: string): Promise<number> {
  const values = (await metrics.closes.get()).values;
  return values.find((v) => v.labels.reason === reason)?.value ?? 0;
}

describe('upgrade refusals, before any WebSocket exists', () => {
  it('answers 404 on any path but /ws, saying where the endpoint is; a query string on /ws is fine', async () => {
    const { port } = await start();
    for (const path of ['/', '/ws/', '/wsx', '/api/ws', '/WS']) {
      const answer = await upgrade(port, path);
      expect(answer.status, path).toBe(404);
      expect(answer.body, path).toBe('no WebSocket endpoint here; use /ws');
      expect(answer.headers.connection, path).toBe('close');
    }
    expect((await upgrade(port, '/ws?codec=msgpack')).status).toBe(101);
  });

  it('checks the Host first (403), then the Origin (403 whatever the token), then the token (401 asking for Bearer)', async () => {
    const { port } = await start({ token: TOKEN });
    const own = `http://localhost:${port}`;
    const bearer = `Bearer ${TOKEN}`;

    const badHost = await upgrade(port, '/ws', { host: `evil.example:${port}`, origin: 'https://evil.example' });
    expect(badHost.status).toBe(403);
    expect(badHost.body).toMatch(/^host "evil\.example:\d+" is not a name of this gateway/);

    for (const headers of [
      { origin: 'https://evil.example', authorization: bearer },
      { origin: 'https://evil.example' },
      { origin: 'null' },
    ] as Array<Record<string, string>>) {
      const badOrigin = await upgrade(port, '/ws', headers);
      expect(badOrigin.status, JSON.stringify(headers)).toBe(403);
      expect(badOrigin.body).toMatch(/^origin ".+" may not use this gateway/);
    }

    const withoutToken: Array<Record<string, string>> = [
      { origin: own },
      { authorization: 'Bearer wrong-token' },
      { cookie: 'sightline_token=wrong' },
    ];
    for (const headers of withoutToken) {
      const noToken = await upgrade(port, '/ws', headers);
      expect(noToken.status, JSON.stringify(headers)).toBe(401);
      expect(noToken.headers['www-authenticate']).toBe('Bearer realm="sightline"');
      expect(noToken.body).toMatch(/missing or wrong access token/);
    }

    expect((await upgrade(port, '/ws', { authorization: bearer })).status).toBe(101);
    expect((await upgrade(port, '/ws', { origin: own, cookie: `sightline_token=${TOKEN}` })).status).toBe(101);
  });

  it('answers 503 once draining', async () => {
    const { port, sockets } = await start();
    await sockets.drain();
    expect(await upgrade(port, '/ws')).toMatchObject({ status: 503, body: 'the gateway is shutting down' });
  });
});

describe('connection caps', () => {
  it('closes a connection past the global cap with 1013 and the limit, before its hello; a freed place is taken again', async () => {
    const { url, accepted, metrics, sockets } = await start({ maxConnections: 2 });
    const first = await connect(url);
    await connect(url);
    expect(await closedAtOnce(await connect(url))).toEqual({
      code: CLOSE_CODES.tryAgainLater,
      reason: 'too many connections (limit 2)',
      greeted: false,
    });
    expect(sockets.connections).toBe(2);
    expect(await closesCounted(metrics, 'full')).toBe(1);

    const freed = once(accepted[0]!, 'close');
    await first.close();
    await freed;
    const next = await connect(url);
    expect(await next.waitForHello(10_000)).toBeDefined();
    expect(sockets.connections).toBe(2);
  });

  it('caps connections per client address, taking the address from X-Forwarded-For when the peer is a trusted proxy', async () => {
    const { url, accepted } = await start({ maxConnectionsPerIp: 1, trustProxy: ['loopback'] });
    const fromA = await connect(url, { 'x-forwarded-for': '203.0.113.1' });
    expect(await fromA.waitForHello(10_000)).toBeDefined();
    expect(await closedAtOnce(await connect(url, { 'x-forwarded-for': '203.0.113.1' }))).toEqual({
      code: CLOSE_CODES.tryAgainLater,
      reason: 'too many connections from your address (limit 1)',
      greeted: false,
    });
    const fromB = await connect(url, { 'x-forwarded-for': '203.0.113.2' });
    expect(await fromB.waitForHello(10_000)).toBeDefined();

    const freed = once(accepted[0]!, 'close');
    await fromA.close();
    await freed;
    const againFromA = await connect(url, { 'x-forwarded-for': '203.0.113.1' });
    expect(await againFromA.waitForHello(10_000)).toBeDefined();
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy: a client cannot dodge its cap by naming others', async () => {
    const { url } = await start({ maxConnectionsPerIp: 1 });
    await connect(url, { 'x-forwarded-for': '203.0.113.1' });
    expect((await closedAtOnce(await connect(url, { 'x-forwarded-for': '203.0.113.2' }))).code).toBe(CLOSE_CODES.tryAgainLater);
  });
});

describe('protocol version and tracking', () => {
  it('serves `?protocol=1`, `2` and `3`, and a client that names none', async () => {
    const { url } = await start();
    for (const query of ['?protocol=1', '?protocol=2', '?protocol=3', '']) {
      const client = await connect(`${url}${query}`);
      expect((await client.hello()).message, query).toMatchObject({ type: 'hello', instance: 'socket-server-test' });
    }
  });

  it('greets a `?protocol=1` client as version 1: a version-1 client closes (4000) on a hello that names another', async () => {
    const { url } = await start();
    const old = await connect(`${url}?protocol=1`);
    expect(((await old.hello()).message as HelloMessage).protocol).toBe(1);
    const current = await connect(`${url}?protocol=${PROTOCOL_VERSION}`);
    expect(((await current.hello()).message as HelloMessage).protocol).toBe(PROTOCOL_VERSION);
  });

  it('closes a connection asking for any other version with 4001 and a short reason naming both, before its hello', async () => {
    const { url, sockets } = await start();
    for (const version of ['4', '0', 'abc', '']) {
      expect(await closedAtOnce(await connect(`${url}?protocol=${version}`)), version).toEqual({
        code: CLOSE_CODES.unsupportedProtocol,
        reason: `protocol ${version} unsupported; this gateway speaks 1, 2, 3`,
        greeted: false,
      });
    }
    // A close reason may carry 123 bytes at most: a long query is cut, not echoed.
    const long = await closedAtOnce(await connect(`${url}?protocol=${'9'.repeat(500)}`));
    expect(long.code).toBe(CLOSE_CODES.unsupportedProtocol);
    expect(Buffer.byteLength(long.reason)).toBeLessThanOrEqual(123);
    expect(sockets.connections).toBe(0);
  });

  it('turns tracking on for `?track=1` (or `true`) and says so in the hello; otherwise the hello has no tracking', async () => {
    const { url } = await start();
    for (const [query, tracking] of [
      ['?track=1', true],
      ['?track=true', true],
      ['?track=0', undefined],
      ['?track=yes', undefined],
      ['', undefined],
    ] as const) {
      const client = await connect(`${url}${query}`);
      expect(((await client.hello()).message as HelloMessage).tracking, query).toBe(tracking);
    }
  });
});

describe('heartbeat', () => {
  it('closes a peer that does not answer a ping by the next one with 4002, and keeps a peer that answers', async () => {
    // Only the heartbeat's interval is faked: sockets, close handshakes and their timers are real.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const heartbeatMs = 1000;
    const { url, accepted, metrics } = await start({ heartbeatMs });
    const silent = new WebSocket(url, { autoPong: false });
    clients.push(silent);
    await once(silent, 'open');
    const answering = new WebSocket(url);
    clients.push(answering);
    await once(answering, 'open');
    expect(accepted).toHaveLength(2);
    const [silentOnServer, answeringOnServer] = accepted as [WebSocket, WebSocket];

    const pinged = Promise.all([once(silent, 'ping'), once(answering, 'ping'), once(answeringOnServer, 'pong')]);
    vi.advanceTimersByTime(heartbeatMs);
    await pinged;
    expect(silentOnServer.readyState).toBe(WebSocket.OPEN);

    const silentClosed = once(silent, 'close') as Promise<[number, Buffer]>;
    const pingedAgain = once(answering, 'ping');
    vi.advanceTimersByTime(heartbeatMs);
    const [code, reason] = await silentClosed;
    expect({ code, reason: reason.toString() }).toEqual({ code: CLOSE_CODES.slowConsumer, reason: 'no answer to a ping within 1 s' });
    await pingedAgain;
    expect(answering.readyState).toBe(WebSocket.OPEN);
    expect(await closesCounted(metrics, 'heartbeat')).toBe(1);
  });
});

describe('drain', () => {
  it('answers the frame in flight, then closes every connection with 1001, and resolves once all are closed', async () => {
    const { url, sockets, port, detector, metrics } = await start();
    const busy = await connect(url);
    const idle = await connect(url);
    await busy.hello();
    await idle.hello();
    busy.send({ type: 'frame', id: 1, ts: 1, image: new Uint8Array([0xff, 0xd8, 0xff]) }, 'msgpack');
    await detector.whenCalled(1);

    let drained = false;
    const draining = sockets.drain().then(() => (drained = true));
    expect((await upgrade(port, '/ws')).status).toBe(503);
    await idle.waitFor(() => idle.closeEvent !== undefined, 10_000);
    expect(idle.closeEvent).toMatchObject({ code: CLOSE_CODES.goingAway, reason: 'gateway shutting down' });
    expect(busy.closeEvent).toBeUndefined();
    expect(drained).toBe(false);

    detector.answerOldest();
    await draining;
    await busy.waitFor(() => busy.closeEvent !== undefined, 10_000);
    expect(busy.answersTo(1).map((r) => r.message.type)).toEqual(['detections']);
    expect(busy.closeEvent).toMatchObject({ code: CLOSE_CODES.goingAway, reason: 'gateway shutting down' });
    expect(sockets.connections).toBe(0);
    expect(await closesCounted(metrics, 'drain')).toBe(2);
  });

  it('resolves at once with no connection open', async () => {
    const { sockets } = await start();
    await sockets.drain();
    expect(sockets.connections).toBe(0);
  });

  it('cuts what is still open when told to (the drain ran out of time)', async () => {
    const { url, sockets, detector } = await start();
    const client = await connect(url);
    client.send({ type: 'frame', id: 1, ts: 1, image: new Uint8Array([0xff, 0xd8, 0xff]) }, 'msgpack');
    await detector.whenCalled(1);
    void sockets.drain();
    sockets.terminateAll();
    await client.waitFor(() => client.closeEvent !== undefined, 10_000);
    expect(client.closeEvent!.code).toBe(1006);
    expect(client.answersTo(1)).toEqual([]);
  });
});
