import { defineConfig } from '@playwright/test';
import { launchOptions } from './support/browser.ts';

const CI = Boolean(process.env.CI);

/**
 * Real gateway + real dashboard (production build) + real Chromium with a fake camera playing real photos.
 * One worker: the machine has 2 cores and ONNX inference is the heavy part; tests in parallel would only
 * measure each other. Each worker starts its own gateway (support/fixtures.ts); globalSetup builds the
 * dashboard and writes the fake camera videos.
 */
export default defineConfig({
  testDir: './tests',
  globalSetup: './support/global-setup.ts',
  outputDir: './test-results',
  fullyParallel: false,
  workers: 1,
  forbidOnly: CI,
  // No retries by default: a retry would hide exactly the timing and reconnect bugs these tests are for.
  // E2E_RETRIES=1 is there for a noisy shared CI runner if that ever proves necessary.
  retries: Number(process.env.E2E_RETRIES ?? 0),
  // The machine is slow and noisy: first detections can take seconds, a reconnect waits out a backoff.
  timeout: 120_000,
  expect: { timeout: 30_000 },
  reporter: [['list'], ['html', { outputFolder: 'playwright-report', open: 'never' }]],
  use: {
    browserName: 'chromium',
    launchOptions: launchOptions({ camera: 'dog', autoAllowCamera: true }),
    permissions: ['camera'],
    viewport: { width: 1440, height: 900 },
    actionTimeout: 15_000,
    navigationTimeout: 30_000,
    acceptDownloads: true,
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    video: 'off',
  },
  projects: [{ name: 'chromium' }],
});
