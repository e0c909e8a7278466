/**
 * Once per run: build the dashboard the gateway serves (web/dist), write the fake camera videos (the
 * photo pans and the tracking clip with its truth) and make the Ultralytics-layout ONNX fixtures
 * (`@sightline/harness/onnx-fixtures`, the builder the gateway's tests use; reused while current, a few
 * seconds to remake once the venv exists).
 * It builds into e2e/artifacts/web-dist (WEB_DIST), not web/dist, so a rebuild by someone working on the
 * dashboard cannot pull the page away mid-test. E2E_SKIP_BUILD=1 reuses an existing build (local iteration only).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ensureOnnxFixtures } from '@sightline/harness/onnx-fixtures';
import { makeAllFakeCameras, TEST_CAMERAS } from '../scripts/make-fake-camera.ts';
import { makeTrackingClip } from '../scripts/make-tracking-clip.ts';
import { chromiumExecutable } from './browser.ts';
import { ARTIFACTS_DIR, REPO_ROOT, SCREENSHOTS_DIR, WEB_DIST } from './paths.ts';

export default async function globalSetup(): Promise<void> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  rmSync(SCREENSHOTS_DIR, { recursive: true, force: true });
  mkdirSync(SCREENSHOTS_DIR, { recursive: true });

  const executable = chromiumExecutable();
  if (!existsSync(executable)) {
    throw new Error(
      `No Chromium at ${executable}: install Playwright's (pnpm exec playwright install chromium) or Debian's (apt-get install chromium)`,
    );
  }
  console.log(`[e2e] chromium: ${executable}`);

  if (process.env.E2E_SKIP_BUILD === '1' && existsSync(join(WEB_DIST, 'index.html'))) {
    console.log(`[e2e] E2E_SKIP_BUILD=1: using the existing ${WEB_DIST}`);
  } else {
    const started = Date.now();
    const pnpm = process.platform === 'win32' ? 'pnpm.cmd' : 'pnpm';
    try {
      execFileSync(pnpm, ['--filter', '@sightline/web', 'build', '--outDir', WEB_DIST, '--emptyOutDir'], {
        cwd: REPO_ROOT,
        stdio: 'pipe',
        encoding: 'utf8',
      });
    } catch (error) {
      const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
      throw new Error(`building the dashboard failed:\n${stdout}\n${stderr}`, { cause: error });
    }
    console.log(`[e2e] dashboard built into ${WEB_DIST} in ${Date.now() - started} ms`);
  }

  const started = Date.now();
  const cameras = await makeAllFakeCameras(undefined, TEST_CAMERAS);
  const trackingClip = await makeTrackingClip();
  console.log(`[e2e] fake cameras ready in ${Date.now() - started} ms: ${[...Object.values(cameras), trackingClip].join(', ')}`);

  const fixtures = await ensureOnnxFixtures();
  console.log(`[e2e] ONNX fixtures ${fixtures.madeMs === 0 ? 'current' : `made in ${fixtures.madeMs} ms`}: ${fixtures.dir}`);
}
