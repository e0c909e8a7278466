/**
 * Bring your own model (issue 19's resolution criterion, in a real Chromium): with the dashboard open, an
 * Ultralytics-style YOLOv8 export is copied into the gateway's models directory as `my-yolo/model.onnx`
 * and nothing else. Without a page reload the dashboard lists it; selected, it finds at the gateway what
 * the same graph finds on the photo the fake camera shows (reference_decode.py, a decode written apart
 * from Sightline's), and then on this device too. A folder whose model.onnx is not a model is shown as
 * not served, with the gateway's reason; the selected model removed, the dashboard says so and falls back
 * to the default.
 *
 * The file is the shipped SSD wrapped into the YOLOv8 layout behind a 640x640 NCHW 0..1 input with
 * Ultralytics' metadata (models/tools/onnx_fixtures.py, made by the global setup). Each test has its own
 * gateway on a temporary copy of models/ (support/models-dir.ts), so what it adds is seen by no other spec.
 */
import type { Page } from '@playwright/test';
import { onnxFixtures } from '@sightline/harness/onnx-fixtures';
import type { ModelsResponse } from '@sightline/shared/protocol';
import { validateModelsResponse } from '@sightline/shared/validation';
import type { Dashboard } from '../support/dashboard.ts';
import { expect, test as base } from '../support/fixtures.ts';
import { GatewayProcess } from '../support/gateway.ts';
import { makeModelsDir, type ModelsDir } from '../support/models-dir.ts';

const DEFAULT_MODEL = 'ssdlite-mobilenetv2-coco';
const MY_MODEL = 'my-yolo';
/** Made by the global setup (`ensureOnnxFixtures`); only their paths here. */
const fixtures = onnxFixtures();
/** The fake camera (`dog`) is a slow 8 % zoom over dog.jpg. */
const PHOTO = 'dog.jpg';
/**
 * What the wrapped SSD is sure of on the photo (score >= 0.5 in the reference decode: car, bicycle and
 * the dog, which this graph at 640x640 calls a cat): what the dashboard must show from it. The weaker
 * ones may come and go as the camera zooms. Read when a test runs: the global setup makes the file after
 * the runner has loaded this one.
 */
function expectedLabels(): string[] {
  return [
    ...new Set(
      fixtures
        .referenceFor('yolov8', PHOTO)
        .filter((d) => d.score >= 0.5)
        .map((d) => d.label),
    ),
  ];
}

const test = base.extend<{ models: ModelsDir; ownGateway: GatewayProcess }>({
  models: async ({}, use) => {
    const models = makeModelsDir();
    await use(models);
    models.dispose();
  },
  ownGateway: [
    async ({ models }, use) => {
      const gateway = await GatewayProcess.start({ name: 'own-model', env: { SIGHTLINE_MODELS_DIR: models.dir } });
      await use(gateway);
      await gateway.stop();
    },
    { timeout: 90_000 },
  ],
  // This spec's pages go to its own gateway; the suite's shared one is not even started for it.
  baseURL: async ({ ownGateway }, use) => {
    await use(ownGateway.url);
  },
});

function modelOption(dashboard: Dashboard, name: string) {
  return dashboard.byTestId('model-select').locator(`option[value="${name}"]`);
}

/** Marks the document; the mark is gone if the page was reloaded or navigated since. */
async function markDocument(page: Page): Promise<void> {
  await page.evaluate(() => Object.assign(window, { __e2eSameDocument: true }));
}

async function sameDocument(page: Page): Promise<boolean> {
  return page.evaluate(() => (window as unknown as { __e2eSameDocument?: boolean }).__e2eSameDocument === true);
}

/** Polls until the detections list shows the latest answer of `model` on `path` with every expected label. */
async function expectDetections(dashboard: Dashboard, model: string, path: 'gateway' | 'device', timeout: number): Promise<void> {
  const list = dashboard.detectionsList;
  await expect(list).toHaveAttribute('data-model', model, { timeout });
  await expect(list).toHaveAttribute('data-path', path, { timeout });
  await dashboard.waitForLabels(expectedLabels(), timeout);
  // waitForLabels read one rendering; it must still be this model's, on this path (not a late answer of another).
  await expect(list).toHaveAttribute('data-model', model);
}

test('a YOLOv8 export dropped into the models folder while the dashboard is open: listed without a reload, boxes at the gateway and on this device', async ({
  page,
  request,
  dashboard,
  models,
  shot,
  problems,
}) => {
  test.setTimeout(360_000);
  expect(expectedLabels().length, `labels the reference decode is sure of on ${PHOTO}`).toBeGreaterThanOrEqual(2);
  await dashboard.openConnected();
  const select = dashboard.byTestId('model-select');
  await expect(select).toHaveValue(DEFAULT_MODEL);
  await expect(modelOption(dashboard, MY_MODEL)).toHaveCount(0);
  await markDocument(page);

  models.addModel(MY_MODEL, fixtures.wrappedSsd('yolov8'));
  // The gateway notices the folder (watch, ~1 s), the dashboard its list (refreshed every few seconds).
  await expect(modelOption(dashboard, MY_MODEL)).toHaveCount(1, { timeout: 60_000 });
  expect(await sameDocument(page), 'the page was not reloaded').toBe(true);

  // Zero configuration: what the gateway inferred from the file (Ultralytics' metadata and shapes).
  const listed: ModelsResponse = validateModelsResponse(await (await request.get('/api/models')).json());
  const info = listed.models.find((model) => model.name === MY_MODEL)!;
  expect(info).toMatchObject({ input: { width: 640, height: 640, layout: 'NCHW', resize: 'letterbox' }, scoreThreshold: 0.25 });
  expect(info.onDevice?.decoder).toBe('yolov8');
  expect(info.labels).toHaveLength(80);

  await dashboard.selectModel(MY_MODEL);
  await expect(page.locator('#model-hint')).toContainText('Objects · 80 classes · input 640×640');
  // Its own threshold (Ultralytics' predict default), and frames sized for its input: 640x480 from the 640x480 camera.
  await expect(dashboard.byTestId('threshold-slider')).toHaveValue('0.25');

  await expectDetections(dashboard, MY_MODEL, 'gateway', 90_000);
  await expect(dashboard.byTestId('captured-size')).toHaveAttribute('data-width', '640');
  await expect
    .poll(async () => (await dashboard.overlayInkPixels()).ink, { timeout: 30_000, message: 'boxes on the overlay' })
    .toBeGreaterThan(500);
  await shot('12-own-model-gateway.png');

  // The same model on this device: onnxruntime-web, the same shared preprocessing and YOLOv8 decoder.
  await dashboard.byTestId('run-on-device').check();
  const status = dashboard.byTestId('on-device-status');
  await expect(status).toHaveAttribute('data-status', 'ready', { timeout: 150_000 });
  await expect(status).toHaveAttribute('data-model', MY_MODEL);
  await expectDetections(dashboard, MY_MODEL, 'device', 120_000);
  await expect(dashboard.byTestId('hud-path')).toHaveAttribute('data-path', 'device');
  await expect
    .poll(async () => (await dashboard.overlayInkPixels()).ink, { timeout: 30_000, message: 'boxes on the overlay' })
    .toBeGreaterThan(500);
  await shot('12-own-model-device.png');

  expect(await sameDocument(page), 'the page was not reloaded').toBe(true);
  expect(problems.pageErrors).toEqual([]);
});

test('a broken model folder is shown as not served, with the gateway’s reason; the selected model removed, the dashboard says so and falls back', async ({
  page,
  request,
  dashboard,
  models,
  shot,
  problems,
}) => {
  test.setTimeout(240_000);
  await dashboard.openConnected();
  await markDocument(page);
  models.addModel(MY_MODEL, fixtures.wrappedSsd('yolov8'));
  await expect(modelOption(dashboard, MY_MODEL)).toHaveCount(1, { timeout: 60_000 });
  await dashboard.selectModel(MY_MODEL);
  await expectDetections(dashboard, MY_MODEL, 'gateway', 90_000);

  // A text file named model.onnx: the gateway keeps serving the others and says why it does not serve this one.
  models.writeFile('broken-model', 'model.onnx', 'this is not an ONNX model\n');
  const entry = page.locator('[data-testid="model-unavailable"][data-name="broken-model"]');
  await expect(entry).toBeVisible({ timeout: 60_000 });
  const listed: ModelsResponse = validateModelsResponse(await (await request.get('/api/models')).json());
  const reason = listed.unavailable?.find((model) => model.name === 'broken-model')?.reason;
  expect(reason, 'the gateway reports the broken folder').toBeTruthy();
  await expect(entry).toContainText(reason!);
  await expect(modelOption(dashboard, 'broken-model')).toHaveCount(0);
  // The model chosen is untouched.
  await expect(dashboard.byTestId('model-select')).toHaveValue(MY_MODEL);
  await shot('12-own-model-unavailable.png');

  // The selected model's folder removed: the default takes over, and the dashboard says what happened.
  models.remove(MY_MODEL);
  await expect(dashboard.byTestId('model-select')).toHaveValue(DEFAULT_MODEL, { timeout: 60_000 });
  await expect(modelOption(dashboard, MY_MODEL)).toHaveCount(0);
  await expect(dashboard.byTestId('model-lost')).toHaveAttribute('data-name', MY_MODEL);
  await expect(dashboard.byTestId('model-lost')).toContainText(`“${MY_MODEL}” is no longer served by the gateway`);
  await expect(dashboard.byTestId('notice-log').locator('[data-code="model_gone"]')).toHaveCount(1);
  await expect(dashboard.detectionsList).toHaveAttribute('data-model', DEFAULT_MODEL, { timeout: 60_000 });
  await shot('12-own-model-gone.png');

  expect(await sameDocument(page), 'the page was not reloaded').toBe(true);
  expect(problems.pageErrors).toEqual([]);
});
