/**
 * On-device inference ("Run on: This device" and "Both"):
 * - the browser's path (the dashboard's inference worker: onnxruntime-web, WASM threads, the shared model
 *   maths) finds the same boxes as the gateway in the same JPEG bytes, for every fixture photo at the
 *   size the dashboard sends it ("Auto" frame size), with both models;
 * - with the fake camera, "This device" draws boxes from the browser's own inference and sends no frame to
 *   the gateway; "Both" alternates and records frames of both paths, the verdict names the faster one,
 *   and the export says which path served each frame.
 */
import { readFile } from 'node:fs/promises';
import type { WebSocket as PwWebSocket } from '@playwright/test';
import sharp from 'sharp';
import { expectedLabels, readPhoto } from '@sightline/shared/fixtures';
import type { DetectionsMessage, ModelsResponse } from '@sightline/shared/protocol';
import { validateModelsResponse } from '@sightline/shared/validation';
import { targetSize } from '@sightline/web/frame-size';
import type { Dashboard } from '../support/dashboard.ts';
import { expect, test } from '../support/fixtures.ts';
import { inferenceWorkerPath, matchDetections, runOnDevice, specOf } from '../support/on-device.ts';

const MIN_IOU = 0.9;

async function pathCount(dashboard: Dashboard, path: 'device' | 'gateway'): Promise<number> {
  const raw = await dashboard.byTestId(`path-${path}`).getByTestId('path-stat-count').getAttribute('data-value');
  return raw ? Number(raw) : 0;
}

test('in the browser, every fixture photo gets the boxes the gateway finds in the same bytes (same labels, IoU >= 0.9)', async ({
  page,
  request,
}) => {
  test.setTimeout(240_000);
  const models: ModelsResponse = validateModelsResponse(await (await request.get('/api/models')).json());
  // A page of the gateway: cross-origin isolated and under its CSP, like the dashboard.
  await page.goto('/healthz');
  const workerPath = inferenceWorkerPath();
  const expected = expectedLabels();
  const report: Record<string, unknown>[] = [];

  for (const model of ['ssdlite-mobilenetv2-coco', 'blazeface-back-256']) {
    const info = models.models.find((m) => m.name === model)!;
    const photos = Object.keys(expected).filter((photo) => expected[photo]![model] !== undefined);
    // Each photo as the dashboard sends it: "Auto" frame size for this model, JPEG quality 0.8.
    const frames: Buffer[] = [];
    for (const photo of photos) {
      const { width = 0, height = 0 } = await sharp(readPhoto(photo)).metadata();
      const size = targetSize({ width, height }, 'auto', info.input);
      frames.push(await sharp(readPhoto(photo)).resize(size.width, size.height, { fit: 'fill' }).jpeg({ quality: 80 }).toBuffer());
    }
    const run = await runOnDevice(page, { workerPath, spec: specOf(info), threads: 2, frames, threshold: info.scoreThreshold });
    expect(run.crossOriginIsolated, 'the gateway page is cross-origin isolated').toBe(true);
    expect(run.loaded).toMatchObject({ backend: 'wasm', threads: 2, crossOriginIsolated: true });

    for (const [i, photo] of photos.entries()) {
      const answer = await request.post(`/api/detect?model=${model}`, { data: frames[i]!, headers: { 'content-type': 'image/jpeg' } });
      expect(answer.status()).toBe(200);
      const gateway = (await answer.json()) as DetectionsMessage;
      const browser = run.results[i]!;
      const where = `${photo} (${browser.width}x${browser.height}) with ${model}`;
      expect({ width: browser.width, height: browser.height }, where).toEqual({ width: gateway.width, height: gateway.height });
      const labels = (list: { label: string }[]) => list.map((d) => d.label).sort();
      expect(labels(browser.detections), `labels of ${where}`).toEqual(labels(gateway.detections));
      const { matched, unmatched } = matchDetections(gateway.detections, browser.detections);
      expect(unmatched, `unmatched boxes of ${where}`).toEqual([]);
      for (const match of matched) expect(match.iou, `IoU of ${match.label} in ${where}`).toBeGreaterThanOrEqual(MIN_IOU);
      report.push({
        model,
        photo,
        size: `${browser.width}x${browser.height}`,
        detections: matched.map((m) => `${m.label} ${m.gatewayScore}/${m.browserScore} IoU ${m.iou.toFixed(4)}`),
        onDeviceInferenceMs: Math.round(browser.timings.inferenceMs * 10) / 10,
        gatewayInferenceMs: gateway.timings.inferenceMs,
      });
    }
  }
  await test.info().attach('on-device-vs-gateway.json', { body: JSON.stringify(report, null, 2), contentType: 'application/json' });
});

test('This device: boxes from the browser’s own inference, no frame sent to the gateway', async ({ page, dashboard, shot, problems }) => {
  const framesToGateway: number[] = [];
  page.on('websocket', (socket: PwWebSocket) => {
    socket.on('framesent', ({ payload }) => {
      const bytes = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
      if (bytes > 1000) framesToGateway.push(bytes); // frames, not pings
    });
  });
  await dashboard.openConnected();
  await dashboard.byTestId('run-on-device').check();
  const status = dashboard.byTestId('on-device-status');
  await expect(status).toHaveAttribute('data-status', 'ready', { timeout: 90_000 });
  await expect(status).toHaveAttribute('data-backend', 'wasm');
  // The page is cross-origin isolated, so WASM may run threads: Auto leaves the page one core (1 on 2 cores).
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  await expect(status).toHaveAttribute('data-threads', String(Math.max(1, Math.min(cores - 1, 4))));
  // The download size and the load time are shown.
  expect(Number(await status.getAttribute('data-bytes'))).toBeGreaterThan(1_000_000);
  expect(Number(await status.getAttribute('data-load-ms'))).toBeGreaterThan(0);
  await expect(status).toContainText(/MiB/);
  await expect(status).toContainText(/ready in/);

  const sentBefore = framesToGateway.length;
  await expect.poll(() => pathCount(dashboard, 'device'), { timeout: 60_000 }).toBeGreaterThanOrEqual(10);
  await expect(dashboard.detectionsList).toHaveAttribute('data-path', 'device');
  await dashboard.waitForLabels(['bicycle'], 30_000);
  expect((await dashboard.overlayInkPixels()).ink, 'boxes drawn on the overlay').toBeGreaterThan(500);
  await expect(dashboard.byTestId('hud-path')).toHaveAttribute('data-path', 'device');
  // The on-device inference time is measured and charted.
  const inference = Number(await dashboard.byTestId('path-device').getByTestId('path-stat-inference').getAttribute('data-value'));
  expect(inference).toBeGreaterThan(0);
  // Nothing went to the gateway meanwhile (at most the frame in flight when the setting changed).
  expect(framesToGateway.length - sentBefore, 'frames sent to the gateway').toBeLessThanOrEqual(1);
  await shot('10-this-device.png');
  expect(problems.pageErrors).toEqual([]);
});

test('Both: frames alternate between the gateway and this device; the verdict names the faster; exports say which path', async ({
  page,
  dashboard,
  shot,
  problems,
}) => {
  await dashboard.openConnected();
  await dashboard.byTestId('run-on-both').check();
  await expect(dashboard.byTestId('on-device-status')).toHaveAttribute('data-status', 'ready', { timeout: 90_000 });
  await expect.poll(() => pathCount(dashboard, 'device'), { timeout: 90_000 }).toBeGreaterThanOrEqual(12);
  await expect.poll(() => pathCount(dashboard, 'gateway'), { timeout: 90_000 }).toBeGreaterThanOrEqual(12);
  const verdict = dashboard.byTestId('comparison-verdict');
  await expect(verdict).toHaveAttribute('data-faster', /^(device|gateway|even)$/, { timeout: 30_000 });
  await expect(verdict).toContainText(/(This device is faster|The gateway is faster|About even) right now/);
  expect(Number(await verdict.getAttribute('data-ratio'))).toBeGreaterThanOrEqual(1);
  // Beside the gateway's full latency and the network round trip.
  for (const metric of ['p50', 'inference', 'server', 'network', 'ping']) {
    const raw = await dashboard.byTestId('path-gateway').getByTestId(`path-stat-${metric}`).getAttribute('data-value');
    expect(Number(raw), `gateway ${metric}`).toBeGreaterThan(0);
  }
  await shot('10-both.png');

  await dashboard.byTestId('pause-button').click();
  await page.waitForTimeout(1500);
  const counts = { device: await pathCount(dashboard, 'device'), gateway: await pathCount(dashboard, 'gateway') };
  // One frame each in turn: the counts stay within a frame or two of each other (the first frames
  // went to the gateway alone while the model was loading).
  const [csvDownload] = await Promise.all([page.waitForEvent('download'), dashboard.byTestId('export-csv').click()]);
  const csv = await readFile(await csvDownload.path(), 'utf8');
  const [header, ...lines] = csv.split(/\r?\n/).filter((line) => line !== '');
  const columns = header!.split(',');
  expect(columns).toContain('path');
  const rows = lines.map((line) => Object.fromEntries(line.split(',').map((cell, i) => [columns[i]!, cell])) as Record<string, string>);
  const ok = rows.filter((row) => row.outcome === 'ok');
  const onDevice = ok.filter((row) => row.path === 'device');
  const viaGateway = ok.filter((row) => row.path === 'gateway');
  expect(onDevice.length).toBeGreaterThanOrEqual(counts.device);
  expect(viaGateway.length).toBeGreaterThanOrEqual(counts.gateway);
  for (const row of onDevice) {
    expect(row.codec, 'no codec on this device').toBe('');
    expect(Number(row.inferenceMs)).toBeGreaterThan(0);
    expect(row.serverMs).toBe('');
  }
  for (const row of viaGateway) expect(['json', 'msgpack']).toContain(row.codec);
  // Alternation: once the model was ready, every device frame sits between gateway frames.
  const order = ok.map((row) => row.path);
  const firstDevice = order.indexOf('device');
  const afterwards = order.slice(firstDevice);
  let runs = 0;
  for (let i = 1; i < afterwards.length; i++) if (afterwards[i] === afterwards[i - 1]) runs++;
  expect(runs, `paths in turn: ${afterwards.join(' ')}`).toBeLessThanOrEqual(2);

  const [jsonDownload] = await Promise.all([page.waitForEvent('download'), dashboard.byTestId('export-json').click()]);
  const exported = JSON.parse(await readFile(await jsonDownload.path(), 'utf8')) as {
    samples: { path: string }[];
    onDevice?: { backend?: string; threads?: number; file?: { bytes: number } };
  };
  expect(new Set(exported.samples.map((s) => s.path))).toEqual(new Set(['device', 'gateway']));
  expect(exported.onDevice).toMatchObject({ backend: 'wasm', file: { bytes: expect.any(Number) } });
  expect(problems.pageErrors).toEqual([]);
});
