/**
 * Settings in the page's address (web/src/app/url-settings.ts): a link sets the dashboard's choices for the
 * page load it opens, over the stored ones and without replacing them; frames go with them from the first
 * one; a value the dashboard cannot take is a notice and a fallback, never a blank page; the address bar
 * follows the choices made on the page; Copy link gives the choices and never the token; the gateway's
 * `?token=` still becomes a cookie on the way in.
 */
import type { APIRequestContext, WebSocket as PwWebSocket } from '@playwright/test';
import type { ModelsResponse } from '@sightline/shared/protocol';
import { launchOptions } from '../support/browser.ts';
import type { Dashboard } from '../support/dashboard.ts';
import { expect, test } from '../support/fixtures.ts';
import { GatewayProcess } from '../support/gateway.ts';

const FACE_MODEL = 'blazeface-back-256';
const DEFAULT_MODEL = 'ssdlite-mobilenetv2-coco';
/** Frames answered before the checks: enough that a frame of the wrong codec would have shown. */
const SAMPLES = 5;
const STORAGE_KEY = 'sightline.settings.v2';

// The astronaut photo as the camera: the face model finds a face in it.
test.use({ launchOptions: launchOptions({ camera: 'astronaut', autoAllowCamera: true }) });

interface WireFrames {
  /** Frame messages (not pings) sent as text (JSON) and as binary (MessagePack). */
  text: number;
  binary: number;
}

/** Counts the frames the page sends on any WebSocket, as Playwright sees them on the wire. */
function recordWire(page: Dashboard['page']): WireFrames {
  const wire: WireFrames = { text: 0, binary: 0 };
  page.on('websocket', (socket: PwWebSocket) => {
    socket.on('framesent', ({ payload }) => {
      const bytes = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
      if (bytes > 1000) wire[typeof payload === 'string' ? 'text' : 'binary']++;
    });
  });
  return wire;
}

async function storedSettings(page: Dashboard['page']): Promise<Record<string, unknown>> {
  return page.evaluate((key) => JSON.parse(localStorage.getItem(key) ?? '{}') as Record<string, unknown>, STORAGE_KEY);
}

async function thresholdOf(request: APIRequestContext, model: string): Promise<number> {
  const models = (await (await request.get('/api/models')).json()) as ModelsResponse;
  return models.models.find((m) => m.name === model)!.scoreThreshold;
}

test('?codec=json&run=gateway&model=blazeface-back-256 sets the controls and every frame goes with them', async ({
  page,
  context,
  dashboard,
  request,
  problems,
  shot,
}) => {
  const faceThreshold = await thresholdOf(request, FACE_MODEL);
  // Stored choices that the link overrides: MessagePack, on this device.
  await page.goto('/healthz');
  await page.evaluate(
    ([key, value]) => localStorage.setItem(key!, value!),
    [STORAGE_KEY, JSON.stringify({ codec: 'msgpack', runOn: 'device', maxInFlight: 1 })],
  );
  const wire = recordWire(page);

  await dashboard.open(`/?codec=json&run=gateway&model=${FACE_MODEL}`);
  await expect(dashboard.byTestId('codec-json')).toBeChecked();
  await expect(dashboard.byTestId('run-on-gateway')).toBeChecked();
  await expect(dashboard.byTestId('model-select')).toHaveValue(FACE_MODEL);
  // The model's own threshold, as when it is picked in the list.
  await expect(dashboard.byTestId('threshold-slider')).toHaveValue(String(faceThreshold));

  await dashboard.waitForStat('json', 'count', (n) => n >= SAMPLES);
  await dashboard.waitForLabels(['face']);
  await expect(dashboard.detectionsList).toHaveAttribute('data-model', FACE_MODEL);
  await expect(dashboard.detectionsList).toHaveAttribute('data-path', 'gateway');
  expect(wire.text, 'JSON frames on the wire').toBeGreaterThanOrEqual(SAMPLES);
  expect(wire.binary, 'MessagePack frames on the wire (the stored codec)').toBe(0);
  expect(await dashboard.statValue('msgpack', 'count')).toBe(0);
  // The stored "this device" was not used: no model was loaded into the page.
  await expect(dashboard.byTestId('on-device-status')).toHaveCount(0);

  // The link set this page load, not the stored choices.
  expect(await storedSettings(page)).toMatchObject({ codec: 'msgpack', runOn: 'device' });

  // The address bar holds every shared choice (the page was opened with settings).
  await expect(page).toHaveURL(/[?&]codec=json(&|$)/);
  const address = new URL(page.url());
  expect(address.searchParams.get('run')).toBe('gateway');
  expect(address.searchParams.get('model')).toBe(FACE_MODEL);
  expect(address.searchParams.get('threshold')).toBe(String(faceThreshold));

  // A choice on the page: the address bar follows, a reload keeps it (and the model, which is not stored).
  await dashboard.selectCodec('msgpack');
  await expect(page).toHaveURL(/[?&]codec=msgpack(&|$)/);
  await shot('13-url-settings.png');
  await page.reload();
  await expect(dashboard.byTestId('codec-msgpack')).toBeChecked();
  await expect(dashboard.byTestId('run-on-gateway')).toBeChecked();
  await expect(dashboard.byTestId('model-select')).toHaveValue(FACE_MODEL);
  await dashboard.waitForStat('msgpack', 'count', (n) => n >= 1);

  // Copy link: the current choices, as a link to this page, and nothing else.
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const copy = dashboard.byTestId('copy-link');
  const href = await copy.getAttribute('href');
  await copy.click();
  await expect(dashboard.byTestId('copy-link-status')).toHaveAttribute('data-state', 'copied');
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toBe(href);
  const link = new URL(copied);
  expect(link.origin + link.pathname).toBe(new URL(page.url()).origin + '/');
  expect(Object.fromEntries(link.searchParams)).toMatchObject({ codec: 'msgpack', run: 'gateway', model: FACE_MODEL });
  expect([...link.searchParams.keys()]).not.toContain('token');

  expect(problems.pageErrors, 'uncaught exceptions in the page').toEqual([]);
});

test('values it cannot take are notices and fall back; the page streams and keeps ?debug', async ({
  page,
  dashboard,
  request,
  problems,
  shot,
}) => {
  const defaultThreshold = await thresholdOf(request, DEFAULT_MODEL);
  await dashboard.open('/?debug&codec=xml&run=gateway&in-flight=99&model=no-such-model&codex=json');

  // Said at once: a toast, and the Errors panel keeps it.
  await expect(dashboard.byTestId('toast').filter({ hasText: 'codec=xml' })).toBeVisible();
  await shot('13-url-notices.png');
  const notices = dashboard.byTestId('notice-log');
  for (const text of ['codec=xml', 'json, msgpack, vp8', 'in-flight=99', '1 to 8', '“codex”', 'model=no-such-model', DEFAULT_MODEL]) {
    await expect(notices, `a notice mentions ${text}`).toContainText(text);
  }

  // Each bad value fell back; the good one was taken.
  await expect(dashboard.byTestId('codec-msgpack')).toBeChecked();
  await expect(dashboard.byTestId('run-on-gateway')).toBeChecked();
  await expect(dashboard.byTestId('in-flight-input')).toHaveValue('1');
  await expect(dashboard.byTestId('model-select')).toHaveValue(DEFAULT_MODEL);
  await expect(dashboard.byTestId('threshold-slider')).toHaveValue(String(defaultThreshold));
  await dashboard.waitForStat('msgpack', 'count', (n) => n >= 3);
  await expect(dashboard.detectionsList).toHaveAttribute('data-model', DEFAULT_MODEL);

  // The address bar says what runs, and keeps the page's own parameters as they were.
  await expect(page).toHaveURL(/[?&]model=ssdlite-mobilenetv2-coco(&|$)/);
  const search = new URL(page.url()).search;
  expect(search.startsWith('?debug&')).toBe(true);
  expect(new URLSearchParams(search).get('codec')).toBe('msgpack');
  expect(new URLSearchParams(search).get('in-flight')).toBe('1');
  expect(await page.evaluate(() => typeof (window as { __sightline?: unknown }).__sightline)).toBe('object');
  // Copy link leaves `debug` out.
  expect(new URL((await dashboard.byTestId('copy-link').getAttribute('href'))!).searchParams.has('debug')).toBe(false);

  expect(problems.pageErrors, 'uncaught exceptions in the page').toEqual([]);
});

const TOKEN = 'e2e-url-settings-token-0123456789';

test('with a token in force: ?token= becomes a cookie, the settings beside it stay and apply', async ({ browser }) => {
  const gateway = await GatewayProcess.start({ name: 'url-token', token: TOKEN });
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, permissions: ['camera'] });
  try {
    const page = await context.newPage();
    await page.goto(`${gateway.url}/?token=${TOKEN}&codec=json&run=gateway`);
    // The gateway took the token out of the address; the settings are still there.
    await expect(page).toHaveURL(/^[^?]+\?codec=json&(.+&)?run=gateway/);
    expect(page.url()).not.toContain('token');
    await expect(page.getByTestId('codec-json')).toBeChecked();
    await expect(page.getByTestId('connection-status')).toHaveAttribute('data-state', 'open');
    const href = (await page.getByTestId('copy-link').getAttribute('href'))!;
    expect(new URL(href).searchParams.get('codec')).toBe('json');
    expect(href).not.toContain('token');
    expect(href).not.toContain(TOKEN);
  } finally {
    await context.close();
    await gateway.stop();
  }
});
