/**
 * Does the dashboard keep a 30 fps video smooth while it streams, draws boxes and updates its charts?
 * A measurement, not a test: starts a real gateway, opens the dashboard in Chromium with a 30 fps fake
 * camera (the dog photo, panning), and for each phase counts, inside the page,
 * - video frames presented (requestVideoFrameCallback) per second, against the camera's 30,
 * - animation-frame gaps (requestAnimationFrame): p50 / p95 / max, and how many exceed 50 ms,
 * - long tasks on the main thread (PerformanceObserver 'longtask', >= 50 ms): count and total,
 * - frames answered per second (the gateway's, from the stats panel; on this device, completed frames
 *   counted over the phase).
 * Phases: streaming paused (video and overlay only), then streaming with each codec, then "Run on: This
 * device" with 1 and 2 WASM threads (the model in a Web Worker: the video must stay smooth while it
 * computes) and "Both".
 *
 *   pnpm --filter @sightline/e2e measure-rendering [--seconds 10]
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Page } from '@playwright/test';
import { launchOptions } from '../support/browser.ts';
import { GatewayProcess } from '../support/gateway.ts';
import { REPO_ROOT } from '../support/paths.ts';
import { makeFakeCamera } from './make-fake-camera.ts';

const secondsArg = process.argv.indexOf('--seconds');
const SECONDS = secondsArg > 0 ? Number(process.argv[secondsArg + 1]) : 10;

interface PhaseFigures {
  videoFps: number;
  rafP50: number;
  rafP95: number;
  rafMax: number;
  rafOver50: number;
  longTasks: number;
  longTaskMs: number;
}

/** Runs in the page: watches the <video> and the main thread for `seconds`. */
function watch(seconds: number): Promise<PhaseFigures> {
  return new Promise((resolve) => {
    const video = document.querySelector('video') as HTMLVideoElement & {
      requestVideoFrameCallback(cb: () => void): number;
    };
    let presented = 0;
    let watching = true;
    const onVideoFrame = () => {
      presented++;
      if (watching) video.requestVideoFrameCallback(onVideoFrame);
    };
    video.requestVideoFrameCallback(onVideoFrame);
    const gaps: number[] = [];
    let last = performance.now();
    const onAnimationFrame = (now: number) => {
      gaps.push(now - last);
      last = now;
      if (watching) requestAnimationFrame(onAnimationFrame);
    };
    requestAnimationFrame(onAnimationFrame);
    const longTasks: number[] = [];
    const observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) longTasks.push(entry.duration);
    });
    observer.observe({ type: 'longtask', buffered: false });
    const started = performance.now();
    setTimeout(() => {
      watching = false;
      observer.disconnect();
      const elapsed = (performance.now() - started) / 1000;
      gaps.sort((a, b) => a - b);
      const at = (q: number) => gaps[Math.min(gaps.length - 1, Math.floor(gaps.length * q))] ?? Number.NaN;
      resolve({
        videoFps: presented / elapsed,
        rafP50: at(0.5),
        rafP95: at(0.95),
        rafMax: gaps[gaps.length - 1] ?? Number.NaN,
        rafOver50: gaps.filter((g) => g > 50).length,
        longTasks: longTasks.length,
        longTaskMs: longTasks.reduce((a, b) => a + b, 0),
      });
    }, seconds * 1000);
  });
}

async function answeredPerSecond(page: Page, codec: 'json' | 'msgpack'): Promise<number> {
  const raw = await page.getByTestId(`stats-${codec}`).getByTestId('stat-fps').getAttribute('data-value');
  return raw ? Number(raw) : Number.NaN;
}

/** Completed frames of a path (Gateway or this device) in its stats window, from the "Gateway or this device" panel. */
async function pathCount(page: Page, path: 'device' | 'gateway'): Promise<number> {
  const raw = await page.getByTestId(`path-${path}`).getByTestId('path-stat-count').getAttribute('data-value');
  return raw ? Number(raw) : 0;
}

const webDist = join(REPO_ROOT, 'web', 'dist');
if (!existsSync(join(webDist, 'index.html'))) {
  execFileSync('pnpm', ['--filter', '@sightline/web', 'build'], { cwd: REPO_ROOT, stdio: 'inherit' });
}
await makeFakeCamera('dog30');
const gateway = await GatewayProcess.start({ name: 'measure-rendering', env: { SIGHTLINE_WEB_DIR: webDist, LOG_LEVEL: 'warn' } });
const browser = await chromium.launch(launchOptions({ camera: 'dog30', autoAllowCamera: true }));
try {
  const page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
  // tsx compiles `watch` with esbuild's keepNames, whose __name helper does not exist in the page.
  await page.addInitScript({ content: 'globalThis.__name = (fn) => fn;' });
  await page.goto(gateway.url);
  await page.getByTestId('connection-status').and(page.locator('[data-state="open"]')).waitFor({ timeout: 60_000 });
  await page.waitForTimeout(3000); // past the first frames, charts filled

  const rows: Array<[string, PhaseFigures, number]> = [];
  const pauseButton = page.getByTestId('pause-button');
  await pauseButton.click(); // pause
  await page.waitForTimeout(1000);
  rows.push(['paused (video + overlay only)', await page.evaluate(watch, SECONDS), Number.NaN]);
  await pauseButton.click(); // resume
  for (const [codec, label] of [
    ['msgpack', 'MessagePack'],
    ['json', 'JSON + Base64'],
  ] as const) {
    await page.getByTestId(`codec-${codec}`).check();
    await page.waitForTimeout(2000);
    const figures = await page.evaluate(watch, SECONDS);
    rows.push([`streaming, ${label}`, figures, await answeredPerSecond(page, codec)]);
  }
  // The model in the browser: a Web Worker with WASM threads computes all the time the video plays.
  await page.getByTestId('codec-msgpack').check();
  await page.getByTestId('run-on-device').check();
  const deviceStatus = page.getByTestId('on-device-status');
  for (const threads of ['1', '2']) {
    await page.getByTestId('device-threads-select').selectOption(threads);
    await deviceStatus.and(page.locator(`[data-status="ready"][data-threads="${threads}"]`)).waitFor({ timeout: 120_000 });
    await page.waitForTimeout(2000);
    // Counts are over the stats window (500): start each phase from none.
    await page.getByTestId('reset-stats').click();
    const before = await pathCount(page, 'device');
    const figures = await page.evaluate(watch, SECONDS);
    rows.push([
      `Run on: This device (WASM, ${threads} ${threads === '1' ? 'thread' : 'threads'})`,
      figures,
      ((await pathCount(page, 'device')) - before) / SECONDS,
    ]);
  }
  await page.getByTestId('run-on-both').check();
  await page.waitForTimeout(2000);
  await page.getByTestId('reset-stats').click();
  const before = (await pathCount(page, 'device')) + (await pathCount(page, 'gateway'));
  const both = await page.evaluate(watch, SECONDS);
  const after = (await pathCount(page, 'device')) + (await pathCount(page, 'gateway'));
  rows.push(['Run on: Both (2 threads; frames of both paths)', both, (after - before) / SECONDS]);

  const f = (v: number, digits = 1) => (Number.isFinite(v) ? v.toFixed(digits) : '-');
  console.log(`\n${SECONDS} s per phase, 30 fps camera, 1366x768 window, default stream settings (Auto frame size, 1 in flight)\n`);
  console.log(
    '| phase | video frames/s | animation-frame gap p50 / p95 / max ms | gaps > 50 ms | long tasks (total ms) | answered frames/s |',
  );
  console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
  for (const [name, p, answered] of rows) {
    console.log(
      `| ${name} | ${f(p.videoFps)} | ${f(p.rafP50)} / ${f(p.rafP95)} / ${f(p.rafMax)} | ${p.rafOver50} | ${p.longTasks} (${f(p.longTaskMs, 0)}) | ${f(answered)} |`,
    );
  }
} finally {
  await browser.close();
  await gateway.stop();
}
