/**
 * Gateway down when the page loads. The gateway normally serves the page itself, so here a plain static
 * server (no WebSocket, no API: 404 / refused upgrade) serves web/dist on the port first, like a proxy or
 * CDN in front of a gateway that is down. Then the static server goes away and a real gateway starts on
 * that very port: the dashboard must connect on its own.
 *
 * (Serving the page with page.route().fulfill() instead does not work with Chromium >= ~140: Local Network
 * Access then blocks the page's WebSocket to 127.0.0.1 with ERR_BLOCKED_BY_LOCAL_NETWORK_ACCESS_CHECKS.)
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { GatewayProcess } from '../support/gateway.ts';
import { WEB_DIST } from '../support/paths.ts';
import { expect, test } from '../support/fixtures.ts';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.map': 'application/json',
};

async function staticServer(root: string, port: number): Promise<Server> {
  const server = createServer(async (request, response) => {
    const { pathname } = new URL(request.url ?? '/', 'http://x');
    if (pathname.startsWith('/api/') || pathname === '/healthz') {
      response.writeHead(404).end();
      return;
    }
    const file = normalize(join(root, pathname === '/' ? 'index.html' : pathname));
    try {
      if (!file.startsWith(root)) throw new Error('outside');
      const body = await readFile(file);
      response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  // No 'upgrade' listener: Node closes WebSocket handshakes, as a dead upstream would.
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return server;
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

test('gateway down at page load: reconnecting, then open once it starts on that port', async ({ page, dashboard, shot }) => {
  const late = await GatewayProcess.create({ name: 'late' });
  const web = await staticServer(WEB_DIST, late.port);
  let webOpen = true;
  try {
    await page.goto(late.url);
    await expect(dashboard.connection).toBeVisible();
    await dashboard.expectState('reconnecting', 20_000);
    await dashboard.recordConnectionStates();
    await page.waitForTimeout(2000);
    await dashboard.expectState('reconnecting');
    expect(await dashboard.statValue('msgpack', 'count')).toBe(0);
    await shot('06-gateway-down.png');

    await close(web);
    webOpen = false;
    await late.start();
    await dashboard.expectState('open', 45_000);
    await expect(dashboard.byTestId('model-select')).toHaveValue('ssdlite-mobilenetv2-coco', { timeout: 30_000 });
    await dashboard.waitForStat('msgpack', 'count', (n) => n >= 3, 60_000);
    await expect(dashboard.detectionsList.getByTestId('detection').first()).toBeVisible();
    expect(await dashboard.recordedStates()).toEqual(['reconnecting', 'open']);
  } finally {
    if (webOpen) await close(web);
    await late.stop();
  }
});
