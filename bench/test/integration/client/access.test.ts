/**
 * The CLI against a gateway that serves HTTPS with its own self-signed certificate and asks for a token
 * (docs/SECURITY.md): refused without the token, served with it, the certificate trusted by --ca or not
 * checked at all with --insecure. The gateway listens on loopback with SIGHTLINE_TLS=auto: what an exposed
 * one serves, without opening a port beyond this machine.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGatewayProcess, type GatewayProcess } from '@sightline/harness/process';
import { readPhoto } from '@sightline/shared/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAccess } from '../../../client/access.ts';
import { RestDriver } from '../../../client/transports/rest.ts';
import { WsConnection } from '../../../client/transports/ws-connection.ts';
import type { FrameInput } from '../../../client/types.ts';
import { runClientCli, SMALL_JSON_RUN } from '../../support/client-cli.ts';

const TOKEN = 'bench-test-token-0123456789abcdef';
const INSTANCE = 'bench-tls-test';

let gateway: GatewayProcess;
let dataDir: string;
let cert: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'sightline-bench-tls-'));
  gateway = await startGatewayProcess({
    https: true,
    token: TOKEN,
    env: { SIGHTLINE_TLS: 'auto', SIGHTLINE_DATA_DIR: dataDir, SIGHTLINE_INSTANCE: INSTANCE },
  });
  cert = join(dataDir, 'tls', 'cert.pem');
});

afterAll(async () => {
  await gateway?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

function cli(args: string[], env: Record<string, string> = {}) {
  // The tests decide whether a token is in the environment, not whoever runs them.
  const { SIGHTLINE_TOKEN: _ignored, ...inherited } = process.env;
  return runClientCli(['--url', gateway.url, '--frames', '3', '--warmup', '1', ...SMALL_JSON_RUN, ...args], { ...inherited, ...env });
}

describe('bench CLI against an HTTPS gateway with a token', () => {
  it('serves HTTPS on its URL', () => {
    expect(gateway.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  });

  it('is refused without the token, and says how to give it', async () => {
    const { code, stdout, stderr } = await cli(['--ca', cert]);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/HTTP 401: the gateway asks for an access token: give --token or set SIGHTLINE_TOKEN/);
  });

  it('is refused with a wrong token', async () => {
    const { code, stderr } = await cli(['--ca', cert, '--token', 'not-the-token-at-all-0000']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/HTTP 401: the gateway refused the access token/);
  });

  it.each([
    ['WebSocket, MessagePack', ['--transport', 'ws', '--codec', 'msgpack']],
    ['WebSocket, JSON', ['--transport', 'ws', '--codec', 'json']],
    ['REST, new connection per request', ['--transport', 'rest', '--codec', 'raw']],
    ['REST, keep-alive', ['--transport', 'rest-keepalive', '--codec', 'msgpack']],
  ])('%s: every frame detected with --token, the certificate trusted by --ca', async (_name, args) => {
    const { code, stdout, stderr } = await cli([...args, '--token', TOKEN, '--ca', cert]);
    expect(code, stderr).toBe(0);
    expect(stderr).not.toContain('warning');
    const summary = JSON.parse(stdout.trim());
    expect(summary.overall.counts).toMatchObject({ sent: 3, ok: 3, unanswered: 0 });
    // Which replica served the WebSocket (REST answers do not say).
    if (args[1] === 'ws') expect(summary.overall.instances).toEqual([{ instance: INSTANCE, connections: 1, frames: 3, ok: 3 }]);
  });

  it('takes the token from SIGHTLINE_TOKEN, and with --insecure does not check the certificate (warned)', async () => {
    const { code, stdout, stderr } = await cli(['--insecure', '--rate', '20'], { SIGHTLINE_TOKEN: TOKEN });
    expect(code, stderr).toBe(0);
    expect(stderr).toMatch(/warning: --insecure: the certificate of 127\.0\.0\.1:\d+ is not verified/);
    // Open loop (--rate): a frame that comes while the gateway's last refusal still asks the client to wait is
    // held back, not sent (it honours retryAfterMs); on a loaded machine one may be. The first finds it idle.
    const counts = JSON.parse(stdout.trim()).overall.counts as { sent: number; held?: number; ok: number; unanswered: number };
    expect(counts.sent + (counts.held ?? 0)).toBe(3);
    expect(counts.ok).toBeGreaterThan(0);
    expect(counts.unanswered).toBe(0);
  });

  it('does not trust the self-signed certificate by default, and says what to do', async () => {
    const { code, stderr } = await cli(['--token', TOKEN]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/certificate is not trusted: give --ca .* or --insecure/);
  });

  it('with the link proxy in between, still checks the certificate against the gateway', async () => {
    const { code, stdout, stderr } = await cli(['--token', TOKEN, '--ca', cert, '--delay', '5']);
    expect(code, stderr).toBe(0);
    expect(JSON.parse(stdout.trim()).overall.counts).toMatchObject({ sent: 3, ok: 3 });
  });

  describe('each transport on its own', () => {
    const trusted = () => ({ token: undefined, ca: readFileSync(cert), insecure: false });
    const frame = (): FrameInput => {
      const bytes = new Uint8Array(readPhoto('dog.jpg'));
      return { name: 'dog.jpg', bytes, contentType: 'image/jpeg', width: 0, height: 0 };
    };

    it('the WebSocket upgrade without the token is refused with 401', async () => {
      await expect(WsConnection.open({ baseUrl: gateway.url, codec: 'msgpack', timeoutMs: 10_000, access: trusted() })).rejects.toThrow(
        /Unexpected server response: 401/,
      );
    });

    it('POST /api/detect without the token gets 401; with it, detections', async () => {
      const without = new RestDriver({ baseUrl: gateway.url, codec: 'raw', keepAlive: false, timeoutMs: 10_000, access: trusted() });
      const refused = await without.request(frame());
      await without.close();
      expect(refused).toMatchObject({ outcome: 'error', errorCode: 'unauthorized' });
      const access = loadAccess({ token: TOKEN, caFile: cert, insecure: false });
      const withToken = new RestDriver({ baseUrl: gateway.url, codec: 'raw', keepAlive: false, timeoutMs: 10_000, access });
      const served = await withToken.request(frame());
      await withToken.close();
      expect(served.outcome).toBe('ok');
      expect(served.detections).toBeGreaterThan(0);
    });
  });
});
