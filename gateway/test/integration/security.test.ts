/**
 * Who gets in: an exposed gateway (every address, generated certificate, a token) and a local one,
 * probed over real HTTPS and WSS with the certificate the gateway generated.
 */
import { once } from 'node:events';
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { CLOSE_CODES } from '@sightline/shared/protocol';
import type { RunningGateway } from '../../src/gateway.ts';
import { localNetworkNames } from '../../src/security/network-names.ts';
import { readAnswer, type HttpAnswer } from '../support/http-answer.ts';
import { startTestGateway } from '../support/test-gateway.ts';

const TOKEN = 'test-token-0123456789abcdef';

/** One HTTP(S) request with exact headers (fetch would add and normalise some, Host among them). */
function get(url: string, headers: Record<string, string> = {}, ca?: string): Promise<HttpAnswer> {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    // TLS checks the certificate against the URL's name, whatever Host header the test sends.
    const req = send(target, { method: 'GET', headers, ca, agent: false, servername: target.hostname }, (res) =>
      readAnswer(res).then(resolve, reject),
    );
    req.on('error', reject);
    req.end();
  });
}

/** Opens a WebSocket and reports how the upgrade went: open (then closed by us), or the HTTP status refused with. */
async function upgrade(
  url: string,
  options: WebSocket.ClientOptions & { ca?: string; servername?: string },
): Promise<{ opened: boolean; status?: number; close?: { code: number; reason: string } }> {
  const ws = new WebSocket(url, options);
  return new Promise((resolve) => {
    ws.on('unexpected-response', (_req, res) => resolve({ opened: false, status: res.statusCode }));
    ws.on('error', () => resolve({ opened: false }));
    ws.on('open', () => {
      // Give the gateway a moment to close an accepted connection (1013 when full).
      const timer = setTimeout(() => {
        ws.close();
        resolve({ opened: true });
      }, 300);
      ws.on('close', (code, reason) => {
        clearTimeout(timer);
        resolve({ opened: true, close: { code, reason: reason.toString() } });
      });
    });
  });
}

describe('exposed gateway: HTTPS, token, Origin and Host checks', () => {
  let gateway: RunningGateway;
  let dataDir: string;
  let ca: string;
  let base: string;
  let wsUrl: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'sightline-security-'));
    gateway = await startTestGateway({ host: '0.0.0.0', dataDir, token: TOKEN, maxConnectionsPerIp: 2 });
    ca = gateway.exposure.tls!.cert;
    base = `https://localhost:${gateway.port}`;
    wsUrl = `wss://localhost:${gateway.port}/ws`;
  });
  afterAll(async () => {
    await gateway.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves HTTPS with a certificate naming localhost, the loopback and every LAN address', async () => {
    expect(gateway.exposure.tls?.source).toBe('generated');
    const { X509Certificate } = await import('node:crypto');
    const cert = new X509Certificate(ca);
    for (const ip of ['127.0.0.1', '::1', ...localNetworkNames().lan]) expect(cert.checkIP(ip), ip).toBe(ip);
    expect(cert.checkHost('localhost')).toBe('localhost');
    expect((await get(`${base}/livez`, {}, ca)).status).toBe(200);
  });

  it('keeps the generated certificate across restarts', async () => {
    const again = await startTestGateway({ host: '0.0.0.0', dataDir, token: TOKEN });
    try {
      expect(again.exposure.tls?.source).toBe('kept');
      expect(again.exposure.tls?.fingerprint).toBe(gateway.exposure.tls?.fingerprint);
    } finally {
      await again.close();
    }
  });

  it('lists the LAN URLs with the token, for the QR code', () => {
    expect(gateway.access).toMatchObject({ exposed: true, secure: true, tokenRequired: true });
    for (const url of gateway.access.network) expect(url).toMatch(new RegExp(`^https://.+:${gateway.port}/\\?token=${TOKEN}$`));
    expect(gateway.access.network.length).toBe(localNetworkNames().lan.length);
  });

  it('answers 401 without the token or with a wrong one, on pages and API alike; probes stay open', async () => {
    for (const path of ['/api/models', '/healthz', '/metrics', '/api/access']) {
      const answer = await get(`${base}${path}`, {}, ca);
      expect(answer.status, path).toBe(401);
      expect(JSON.parse(answer.body)).toMatchObject({ type: 'error', code: 'unauthorized' });
    }
    expect((await get(`${base}/`, {}, ca)).body).toMatch(/Access token needed/);
    expect((await get(`${base}/api/models`, { authorization: 'Bearer wrong-token-0123456789' }, ca)).status).toBe(401);
    expect((await get(`${base}/livez`, {}, ca)).status).toBe(200);
    expect((await get(`${base}/readyz`, {}, ca)).status).toBe(200);
  });

  it('accepts the token as Bearer on REST', async () => {
    const answer = await get(`${base}/api/models`, { authorization: `Bearer ${TOKEN}` }, ca);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).models.length).toBeGreaterThan(0);
  });

  it('turns the token URL into an HttpOnly, Secure, SameSite=Strict cookie and takes the token out of the address', async () => {
    const answer = await get(`${base}/?token=${TOKEN}&x=1`, {}, ca);
    expect(answer.status).toBe(302);
    expect(answer.headers.location).toBe('/?x=1');
    const cookie = String(answer.headers['set-cookie']);
    expect(cookie).toMatch(new RegExp(`^sightline_token=${TOKEN};`));
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/Secure/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const withCookie = await get(`${base}/api/models`, { cookie: `sightline_token=${TOKEN}` }, ca);
    expect(withCookie.status).toBe(200);
    expect((await get(`${base}/?token=wrong-token-0123456789`, {}, ca)).status).toBe(401);
  });

  it('opens the WebSocket for its own origin with the cookie, and for a program (no Origin) with Bearer', async () => {
    const own = await upgrade(wsUrl, { ca, headers: { origin: base, cookie: `sightline_token=${TOKEN}` } });
    expect(own.opened).toBe(true);
    const program = await upgrade(wsUrl, { ca, headers: { authorization: `Bearer ${TOKEN}` } });
    expect(program.opened).toBe(true);
  });

  it('refuses the WebSocket with 401 without the token, and with 403 from another origin even with it', async () => {
    expect(await upgrade(wsUrl, { ca })).toEqual({ opened: false, status: 401 });
    expect(await upgrade(wsUrl, { ca, headers: { authorization: 'Bearer wrong-token-0123456789' } })).toEqual({
      opened: false,
      status: 401,
    });
    for (const origin of ['https://evil.example', 'null', `https://localhost:${gateway.port + 1}`]) {
      expect(
        await upgrade(wsUrl, { ca, headers: { origin, cookie: `sightline_token=${TOKEN}`, authorization: `Bearer ${TOKEN}` } }),
        origin,
      ).toEqual({
        opened: false,
        status: 403,
      });
    }
  });

  it('refuses a Host that does not name the gateway (DNS rebinding), on HTTP and on the upgrade', async () => {
    const evil = await get(`${base}/api/models`, { host: `evil.example:${gateway.port}`, authorization: `Bearer ${TOKEN}` }, ca);
    expect(evil.status).toBe(403);
    expect(JSON.parse(evil.body)).toMatchObject({ code: 'forbidden' });
    const lan = localNetworkNames().lan[0];
    if (lan)
      expect((await get(`${base}/api/models`, { host: `${lan}:${gateway.port}`, authorization: `Bearer ${TOKEN}` }, ca)).status).toBe(200);
    expect(
      await upgrade(wsUrl, {
        ca,
        servername: 'localhost',
        headers: { host: `evil.example:${gateway.port}`, authorization: `Bearer ${TOKEN}` },
      }),
    ).toEqual({
      opened: false,
      status: 403,
    });
  });

  it('caps WebSocket connections per client address with 1013 and a reason', async () => {
    const open = (): Promise<WebSocket> => {
      const ws = new WebSocket(wsUrl, { ca, headers: { authorization: `Bearer ${TOKEN}` } });
      return once(ws, 'open').then(() => ws);
    };
    const held = [await open(), await open()];
    const third = await upgrade(wsUrl, { ca, headers: { authorization: `Bearer ${TOKEN}` } });
    expect(third.close).toEqual({ code: CLOSE_CODES.tryAgainLater, reason: 'too many connections from your address (limit 2)' });
    for (const ws of held) ws.close();
  });

  it('sends security headers with a Content-Security-Policy, and no CORS headers', async () => {
    const answer = await get(`${base}/api/models`, { authorization: `Bearer ${TOKEN}`, origin: 'https://evil.example' }, ca);
    expect(answer.headers['content-security-policy']).toMatch(/default-src 'self'/);
    expect(answer.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect(answer.headers['cross-origin-opener-policy']).toBe('same-origin');
    // Cross-origin isolated (with COOP): SharedArrayBuffer for on-device inference's WASM threads.
    expect(answer.headers['cross-origin-embedder-policy']).toBe('require-corp');
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('local gateway (default): no token, Origin still checked', () => {
  let gateway: RunningGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ allowedOrigins: ['http://localhost:5173'], metricsPort: 0 });
  });
  afterAll(async () => {
    await gateway.close();
  });

  it('needs no token on localhost, and is plain HTTP', async () => {
    expect(gateway.exposure).toMatchObject({ exposed: false, tls: undefined, tokenSource: 'none' });
    expect((await get(`${gateway.url}/api/models`)).status).toBe(200);
    expect(await upgrade(`ws://127.0.0.1:${gateway.port}/ws`, {})).toMatchObject({ opened: true });
  });

  it('refuses a foreign Origin with 403 on localhost too, and allows the configured one with CORS', async () => {
    expect(await upgrade(`ws://127.0.0.1:${gateway.port}/ws`, { headers: { origin: 'https://evil.example' } })).toEqual({
      opened: false,
      status: 403,
    });
    expect(await upgrade(`ws://127.0.0.1:${gateway.port}/ws`, { headers: { origin: `http://localhost:${gateway.port}` } })).toMatchObject({
      opened: true,
    });
    expect(await upgrade(`ws://127.0.0.1:${gateway.port}/ws`, { headers: { origin: 'http://localhost:5173' } })).toMatchObject({
      opened: true,
    });
    const cors = await get(`${gateway.url}/api/models`, { origin: 'http://localhost:5173' });
    expect(cors.headers['access-control-allow-origin']).toBe('http://localhost:5173');
  });

  it('refuses a Host that is not a name of this machine even on localhost (DNS rebinding)', async () => {
    expect((await get(`${gateway.url}/api/models`, { host: `rebind.example:${gateway.port}` })).status).toBe(403);
  });
});
