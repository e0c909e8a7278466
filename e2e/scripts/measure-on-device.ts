/**
 * On the device or at the edge, on this machine: the same model on the same frames, run by the browser
 * (the dashboard's inference worker: onnxruntime-web WASM SIMD in headless Chromium, cross-origin
 * isolated, 1 and 2 threads) and by the gateway (onnxruntime-node, POST /api/detect with the same JPEG
 * bytes), then the dashboard itself in "Both" with the fake camera. A measurement, not a test.
 *
 *   pnpm --filter @sightline/e2e measure-on-device [--rounds 6] [--seconds 30]
 *
 * Frames: every fixture photo with SSDLite expectations, at the size the dashboard sends it ("Auto":
 * 400x300 for a 4:3 picture), JPEG quality 0.8. Figures go to stdout (markdown) and
 * e2e/artifacts/on-device-figures.json.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import sharp from 'sharp';
import { expectedLabels, readPhoto } from '@sightline/shared/fixtures';
import type { DetectionsMessage } from '@sightline/shared/protocol';
import { summarize } from '@sightline/shared/stats';
import { validateModelsResponse } from '@sightline/shared/validation';
import { targetSize } from '@sightline/web/frame-size';
import { launchOptions } from '../support/browser.ts';
import { GatewayProcess } from '../support/gateway.ts';
import { inferenceWorkerPath, runOnDevice, specOf } from '../support/on-device.ts';
import { ARTIFACTS_DIR, REPO_ROOT } from '../support/paths.ts';
import { makeFakeCamera } from './make-fake-camera.ts';

const arg = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const ROUNDS = arg('rounds', 6);
const SECONDS = arg('seconds', 30);
const MODEL = 'ssdlite-mobilenetv2-coco';

const webDist = join(REPO_ROOT, 'web', 'dist');
if (!existsSync(join(webDist, 'index.html'))) {
  execFileSync('pnpm', ['--filter', '@sightline/web', 'build'], { cwd: REPO_ROOT, stdio: 'inherit' });
}
await makeFakeCamera('dog');
const loadBefore = loadavg()
  .map((v) => v.toFixed(2))
  .join(' ');
const gateway = await GatewayProcess.start({ name: 'measure-on-device', env: { SIGHTLINE_WEB_DIR: webDist, LOG_LEVEL: 'warn' } });
const browser = await chromium.launch(launchOptions({ camera: 'dog', autoAllowCamera: true }));

const p = (values: number[]) => {
  const s = summarize(values);
  return { p50: s.p50, p95: s.p95, mean: s.mean, count: s.count };
};
const f = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : '-');

try {
  const models = validateModelsResponse(await (await fetch(`${gateway.url}/api/models`)).json());
  const info = models.models.find((m) => m.name === MODEL)!;
  const expected = expectedLabels();
  const photos = Object.keys(expected).filter((photo) => expected[photo]![MODEL] !== undefined);
  const frames: Buffer[] = [];
  for (const photo of photos) {
    const { width = 0, height = 0 } = await sharp(readPhoto(photo)).metadata();
    const size = targetSize({ width, height }, 'auto', info.input);
    frames.push(await sharp(readPhoto(photo)).resize(size.width, size.height, { fit: 'fill' }).jpeg({ quality: 80 }).toBuffer());
  }

  // 1. The bare paths, one frame at a time.
  const page = await browser.newPage();
  await page.goto(`${gateway.url}/healthz`);
  const workerPath = inferenceWorkerPath(webDist);
  const device: Record<string, unknown> = {};
  for (const threads of [1, 2]) {
    const run = await runOnDevice(page, {
      workerPath,
      spec: specOf(info),
      threads,
      frames,
      threshold: info.scoreThreshold,
      repeat: ROUNDS,
    });
    // The first round warms the caches of every frame size.
    const measured = run.results.slice(frames.length);
    device[`${threads}`] = {
      loaded: run.loaded,
      inferenceMs: p(measured.map((r) => r.timings.inferenceMs)),
      workerMs: p(measured.map((r) => r.timings.decodeMs + r.timings.preprocessMs + r.timings.inferenceMs + r.timings.postprocessMs)),
      roundTripMs: p(measured.map((r) => r.roundTripMs)),
    };
  }
  await page.close();

  const gatewayRuns: { inferenceMs: number; serverMs: number; roundTripMs: number }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const frame of frames) {
      const started = performance.now();
      const response = await fetch(`${gateway.url}/api/detect?model=${MODEL}`, {
        method: 'POST',
        headers: { 'content-type': 'image/jpeg' },
        body: new Uint8Array(frame),
      });
      const answer = (await response.json()) as DetectionsMessage;
      if (round > 0) {
        gatewayRuns.push({
          inferenceMs: answer.timings.inferenceMs,
          serverMs: answer.timings.serverMs,
          roundTripMs: performance.now() - started,
        });
      }
    }
  }
  const gatewayFigures = {
    inferenceMs: p(gatewayRuns.map((r) => r.inferenceMs)),
    serverMs: p(gatewayRuns.map((r) => r.serverMs)),
    roundTripMs: p(gatewayRuns.map((r) => r.roundTripMs)),
  };

  // 2. The dashboard in Both, with the fake camera: its own figures and verdict.
  const dashboard = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await dashboard.goto(gateway.url);
  await dashboard.getByTestId('connection-status').and(dashboard.locator('[data-state="open"]')).waitFor({ timeout: 60_000 });
  await dashboard.getByTestId('run-on-both').check();
  await dashboard.getByTestId('on-device-status').and(dashboard.locator('[data-status="ready"]')).waitFor({ timeout: 120_000 });
  await dashboard.waitForTimeout(3000);
  await dashboard.getByTestId('reset-stats').click();
  await dashboard.waitForTimeout(SECONDS * 1000);
  const stat = async (path: string, metric: string) =>
    Number(await dashboard.getByTestId(`path-${path}`).getByTestId(`path-stat-${metric}`).getAttribute('data-value'));
  const live = {
    threads: Number(await dashboard.getByTestId('on-device-status').getAttribute('data-threads')),
    device: {
      frames: await stat('device', 'count'),
      perFrameP50: await stat('device', 'p50'),
      inferenceP50: await stat('device', 'inference'),
    },
    gateway: {
      frames: await stat('gateway', 'count'),
      perFrameP50: await stat('gateway', 'p50'),
      serverP50: await stat('gateway', 'server'),
      inferenceP50: await stat('gateway', 'inference'),
      networkP50: await stat('gateway', 'network'),
      pingMs: await stat('gateway', 'ping'),
    },
    verdict: (await dashboard.getByTestId('comparison-verdict').textContent())?.trim(),
  };

  const figures = {
    measuredAt: new Date().toISOString(),
    machine: `2 cores shared with other work; load average before: ${loadBefore}`,
    frames: frames.length,
    rounds: ROUNDS,
    device,
    gateway: gatewayFigures,
    live,
  };
  writeFileSync(join(ARTIFACTS_DIR, 'on-device-figures.json'), `${JSON.stringify(figures, null, 2)}\n`);

  type Figures = { inferenceMs: { p50: number; p95: number }; workerMs: { p50: number }; roundTripMs: { p50: number; p95: number } };
  const d1 = device['1'] as Figures;
  const d2 = device['2'] as Figures;
  console.log(
    `\n${frames.length} fixture photos at dashboard size x ${ROUNDS - 1} measured rounds, one frame at a time; load average before ${loadBefore}\n`,
  );
  console.log('| path | inference p50 / p95 ms | per frame p50 / p95 ms |');
  console.log('| --- | ---: | ---: |');
  console.log(
    `| this device, WASM SIMD, 1 thread | ${f(d1.inferenceMs.p50)} / ${f(d1.inferenceMs.p95)} | ${f(d1.roundTripMs.p50)} / ${f(d1.roundTripMs.p95)} |`,
  );
  console.log(
    `| this device, WASM SIMD, 2 threads | ${f(d2.inferenceMs.p50)} / ${f(d2.inferenceMs.p95)} | ${f(d2.roundTripMs.p50)} / ${f(d2.roundTripMs.p95)} |`,
  );
  console.log(
    `| gateway, onnxruntime-node (POST /api/detect) | ${f(gatewayFigures.inferenceMs.p50)} / ${f(gatewayFigures.inferenceMs.p95)} | ${f(gatewayFigures.roundTripMs.p50)} / ${f(gatewayFigures.roundTripMs.p95)} (gateway's own ${f(gatewayFigures.serverMs.p50)}) |`,
  );
  console.log(`\nDashboard, Run on: Both, ${SECONDS} s, fake camera (dog), ${live.threads} threads on the device:`);
  console.log(
    `- this device: ${live.device.frames} frames, per frame p50 ${f(live.device.perFrameP50)} ms, inference p50 ${f(live.device.inferenceP50)} ms`,
  );
  console.log(
    `- gateway: ${live.gateway.frames} frames, per frame p50 ${f(live.gateway.perFrameP50)} ms (gateway ${f(live.gateway.serverP50)}, inference ${f(live.gateway.inferenceP50)}, network ${f(live.gateway.networkP50)}), ping ${f(live.gateway.pingMs)} ms`,
  );
  console.log(`- verdict: ${live.verdict}`);
} finally {
  await browser.close();
  await gateway.stop();
}
