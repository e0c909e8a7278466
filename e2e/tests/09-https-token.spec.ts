/**
 * The phone path, in Chromium: the gateway exposed (every address, HTTPS with the certificate it
 * generated, an access token), opened at the printed https://<address>/?token=... URL. The browser trusts
 * exactly that certificate's key (as a user who accepted it would), so the page is a secure context, the
 * fake camera streams over wss://, boxes appear, and the token leaves the address bar; on-device inference
 * loads its model file from behind the token.
 */
import { createHash, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { expectedLabels } from '@sightline/shared/fixtures';
import { chromiumArgs, chromiumExecutable } from '../support/browser.ts';
import { Dashboard } from '../support/dashboard.ts';
import { expect, test } from '../support/fixtures.ts';
import { GatewayProcess } from '../support/gateway.ts';
import { SCREENSHOTS_DIR } from '../support/paths.ts';

const TOKEN = 'e2e-https-token-0123456789';

/** What Chromium's --ignore-certificate-errors-spki-list takes: the base64 SHA-256 of the public key. */
function spkiHash(certPem: string): string {
  const der = new X509Certificate(certPem).publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('base64');
}

test('over https://<address>/?token=: secure context, camera over wss://, boxes, token gone from the URL', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sightline-e2e-tls-'));
  const gateway = await GatewayProcess.start({
    name: 'https',
    host: '0.0.0.0',
    https: true,
    token: TOKEN,
    env: { SIGHTLINE_DATA_DIR: dataDir },
  });
  const browser = await chromium.launch({
    executablePath: chromiumExecutable(),
    args: [
      ...chromiumArgs({ camera: 'dog', autoAllowCamera: true }),
      `--ignore-certificate-errors-spki-list=${spkiHash(readFileSync(join(dataDir, 'tls', 'cert.pem'), 'utf8'))}`,
    ],
  });
  try {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, permissions: ['camera'] });
    const page = await context.newPage();
    const sockets: string[] = [];
    page.on('websocket', (ws) => sockets.push(ws.url()));
    const cspViolations: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });

    await page.goto(`https://127.0.0.1:${gateway.port}/?token=${TOKEN}`);
    await expect(page).toHaveURL(`https://127.0.0.1:${gateway.port}/`);
    expect(await page.evaluate(() => window.isSecureContext)).toBe(true);
    const cookie = (await context.cookies()).find((c) => c.name === 'sightline_token');
    expect(cookie).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Strict' });

    const dashboard = new Dashboard(page);
    await dashboard.expectState('open');
    await dashboard.waitForLabels(expectedLabels()['dog.jpg']!['ssdlite-mobilenetv2-coco']!, 60_000);
    expect(sockets.length).toBeGreaterThan(0);
    expect(sockets.every((url) => url.startsWith(`wss://127.0.0.1:${gateway.port}/ws`))).toBe(true);

    // The phone panel offers the LAN address with the token, as a QR code.
    await page.getByTestId('phone-access').locator('summary').click();
    await expect(page.getByTestId('phone-qr')).toBeVisible();
    await expect(page.getByTestId('phone-url')).toHaveText(new RegExp(`^https://.+:${gateway.port}/\\?token=${TOKEN}$`));
    await page.screenshot({ path: join(SCREENSHOTS_DIR, '09-https-token.png') });

    // On this device too: cross-origin isolated over HTTPS, and the inference worker gets the model file
    // from behind the token with the cookie.
    expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
    await page.getByTestId('run-on-device').check();
    await expect(page.getByTestId('on-device-status')).toHaveAttribute('data-status', 'ready', { timeout: 90_000 });
    await expect(dashboard.detectionsList).toHaveAttribute('data-path', 'device', { timeout: 30_000 });

    // Without the token, a fresh browser gets the explanation, not the dashboard.
    const stranger = await browser.newContext();
    const strangerPage = await stranger.newPage();
    const answer = await strangerPage.goto(`https://127.0.0.1:${gateway.port}/`);
    expect(answer?.status()).toBe(401);
    await expect(strangerPage.getByRole('heading', { name: 'Access token needed' })).toBeVisible();
    expect(cspViolations).toEqual([]);
  } finally {
    await browser.close();
    await gateway.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
