/**
 * Camera permission denied. --use-fake-ui-for-media-stream grants every camera request whatever the
 * context's permissions say (even after clearPermissions()), so this file launches Chromium without it:
 * the fake device is still there, and a context without the 'camera' permission gets NotAllowedError.
 */
import { launchOptions } from '../support/browser.ts';
import { expect, test } from '../support/fixtures.ts';

test.use({ launchOptions: launchOptions({ camera: 'dog', autoAllowCamera: false }), permissions: [] });

test('camera permission denied shows camera-error; the socket is still open and nothing is streamed', async ({ page, dashboard, shot }) => {
  await dashboard.open();
  const error = dashboard.byTestId('camera-error');
  await expect(error).toBeVisible();
  await expect(error).toContainText(/denied|permission/i);
  await dashboard.expectState('open');
  await page.waitForTimeout(2000);
  expect(await dashboard.statValue('msgpack', 'count')).toBe(0);
  expect(await dashboard.statValue('json', 'count')).toBe(0);
  await expect(dashboard.detectionsList.getByTestId('detection')).toHaveCount(0);
  await shot('05-camera-denied.png');
});

test.describe('control: same launch flags, camera permission granted', () => {
  test.use({ permissions: ['camera'] });
  test('the camera works and frames are answered', async ({ dashboard }) => {
    await dashboard.openConnected();
    await dashboard.waitForStat('msgpack', 'count', (n) => n >= 3);
    await expect(dashboard.byTestId('camera-error')).toHaveCount(0);
  });
});
