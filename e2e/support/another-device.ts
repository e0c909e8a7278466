/**
 * A page the gateway takes for another device's: a gateway of its own that believes X-Forwarded-For from this
 * machine, and a browser context that sends one, so what the gateway keeps for its own machine (an emulated
 * link without the token) is refused, as it would be for a phone on the LAN.
 */
import { expect, type Browser, type Page } from '@playwright/test';
import { GatewayProcess } from './gateway.ts';

export async function onAnotherDevice(
  browser: Browser,
  name: string,
  run: (page: Page, gateway: GatewayProcess) => Promise<void>,
): Promise<void> {
  const gateway = await GatewayProcess.start({ name, env: { SIGHTLINE_TRUST_PROXY: 'loopback' } });
  const context = await browser.newContext({
    viewport: { width: 1440, height: 900 },
    permissions: ['camera'],
    extraHTTPHeaders: { 'X-Forwarded-For': '203.0.113.7' },
  });
  try {
    await run(await context.newPage(), gateway);
  } finally {
    await context.close();
    await gateway.stop();
  }
}

/** Waits until a codec's stats panel (`stats-<key>`) has counted at least `frames` answered frames. */
export async function expectFramesCounted(page: Page, statsKey: string, frames: number, timeout: number): Promise<void> {
  await expect
    .poll(async () => Number(await page.getByTestId(`stats-${statsKey}`).getByTestId('stat-count').getAttribute('data-value')), {
      timeout,
    })
    .toBeGreaterThanOrEqual(frames);
}
