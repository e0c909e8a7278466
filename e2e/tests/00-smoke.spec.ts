/**
 * The infrastructure itself: the gateway answers over HTTP, the page loads from it, and the fake camera
 * videos really contain what the photos are expected to show (checked over REST, without the browser,
 * so a failing dashboard test can be told apart from a bad fixture).
 */
import { expectedLabels } from '@sightline/shared/fixtures';
import type { DetectionsMessage, HealthResponse, ModelsResponse } from '@sightline/shared/protocol';
import { FAKE_CAMERAS, fakeCameraPath, type FakeCameraName } from '../scripts/make-fake-camera.ts';
import { labelsSatisfy } from '../support/dashboard.ts';
import { expect, test } from '../support/fixtures.ts';
import { i420ToJpeg, readY4m } from '../support/y4m.ts';

test('gateway is healthy and lists both models', async ({ request }) => {
  const health = (await (await request.get('/healthz')).json()) as HealthResponse;
  expect(health.ok).toBe(true);
  expect(health.modelsLoaded).toEqual(expect.arrayContaining(['ssdlite-mobilenetv2-coco', 'blazeface-back-256']));

  const response = await request.get('/api/models');
  expect(response.ok()).toBe(true);
  const models = (await response.json()) as ModelsResponse;
  expect(models.defaultModel).toBe('ssdlite-mobilenetv2-coco');
  expect(models.models.map((m) => m.name).sort()).toEqual(['blazeface-back-256', 'ssdlite-mobilenetv2-coco']);
  expect(models.models.find((m) => m.name === 'blazeface-back-256')?.labels).toEqual(['face']);
});

test('the dashboard loads from the gateway with every control of the UI contract', async ({ page, dashboard, problems }) => {
  await dashboard.open();
  await expect(page).toHaveTitle(/sightline/i);
  for (const id of [
    'video',
    'overlay',
    'connection-status',
    'codec-json',
    'codec-msgpack',
    'ab-mode',
    'model-select',
    'threshold-slider',
    'in-flight-input',
    'frame-size-select',
    'jpeg-quality-input',
    'source-select',
    'file-input',
    'camera-select',
    'pause-button',
    'detections-list',
    'latency-chart',
    'ping-value',
    'stats-json',
    'stats-msgpack',
    'export-csv',
    'export-json',
    'error-log',
  ]) {
    await expect(dashboard.byTestId(id), `data-testid="${id}"`).toHaveCount(1);
  }
  for (const codec of ['json', 'msgpack'] as const) {
    for (const metric of ['count', 'p50', 'p95', 'p99', 'mean', 'stddev', 'fps', 'dropped', 'errors', 'bytes-up', 'bytes-down'] as const) {
      await expect(dashboard.stat(codec, metric), `stats-${codec} stat-${metric}`).toHaveAttribute('data-value');
    }
  }
  await expect(dashboard.byTestId('source-select').locator('option')).toHaveText([/camera/i, /file/i]);
  expect(
    await dashboard
      .byTestId('source-select')
      .locator('option')
      .evaluateAll((o) => o.map((e) => (e as HTMLOptionElement).value)),
  ).toEqual(['camera', 'file']);
  await dashboard.expectState('open');
  await expect(dashboard.byTestId('model-select').locator('option')).toHaveCount(2);
  expect(problems.pageErrors, 'uncaught exceptions in the page').toEqual([]);
});

const fixtureChecks: { camera: FakeCameraName; model: string }[] = [
  { camera: 'dog', model: 'ssdlite-mobilenetv2-coco' },
  { camera: 'astronaut', model: 'blazeface-back-256' },
];

for (const { camera, model } of fixtureChecks) {
  test(`fake camera "${camera}": every 4th frame shows the expected ${model} labels over REST (640 px)`, async ({ request }) => {
    const spec = FAKE_CAMERAS[camera];
    const expected = expectedLabels()[spec.photo]?.[model];
    expect(expected, `expected.json has ${spec.photo} / ${model}`).toBeTruthy();
    const video = readY4m(fakeCameraPath(camera));
    expect(video).toMatchObject({ width: 640, height: 480, fps: spec.fps });
    expect(video.frames).toHaveLength(spec.frames);
    for (let index = 0; index < video.frames.length; index += 4) {
      const jpeg = await i420ToJpeg(video.frames[index]!, video.width, video.height, 640);
      const response = await request.post(`/api/detect?model=${model}`, { data: jpeg, headers: { 'content-type': 'image/jpeg' } });
      expect(response.status(), await response.text()).toBe(200);
      const answer = (await response.json()) as DetectionsMessage;
      const labels = answer.detections.map((d) => d.label);
      expect(labelsSatisfy(labels, expected!), `frame ${index}: ${labels.join(', ')}`).toBe(true);
    }
  });
}
