/** Which Chromium runs the tests, and the flags that give it a fake camera playing our Y4M files. */
import { existsSync } from 'node:fs';
import { chromium } from '@playwright/test';
import { fakeCameraPath, type FakeCameraName } from '../scripts/make-fake-camera.ts';
import { trackingClipPath } from '../scripts/make-tracking-clip.ts';

/** A fake camera: one of the photo pans, or `tracking` (objects on known paths, scripts/make-tracking-clip.ts). */
export type CameraName = FakeCameraName | 'tracking';

export function cameraFile(name: CameraName): string {
  return name === 'tracking' ? trackingClipPath() : fakeCameraPath(name);
}

/** Playwright's own Chromium when it is installed, otherwise Debian's (CI installs it with apt). */
export function chromiumExecutable(): string {
  const fromEnv = process.env.E2E_CHROMIUM;
  if (fromEnv) return fromEnv;
  try {
    const own = chromium.executablePath();
    if (own && existsSync(own)) return own;
  } catch {
    // no browsers registry: fall through
  }
  return '/usr/bin/chromium';
}

export interface ChromiumArgsOptions {
  /** Fake camera video; null for none (the fake device then shows Chrome's test pattern). */
  camera: CameraName | null;
  /**
   * --use-fake-ui-for-media-stream answers every camera prompt with "allow"; without it the prompt is
   * left to the browser (headless: dismissed, i.e. denied).
   */
  autoAllowCamera: boolean;
}

export const BASE_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
  '--disable-quic',
  '--autoplay-policy=no-user-gesture-required',
  // Keep timers and rAF running at full speed even if the page is considered hidden.
  '--disable-background-timer-throttling',
  '--disable-renderer-backgrounding',
  '--disable-backgrounding-occluded-windows',
  // WebRTC to the gateway on loopback (its ICE binds 127.0.0.1): Chromium leaves loopback candidates out unless told,
  // and hides host candidates behind mDNS names the gateway cannot resolve.
  '--allow-loopback-in-peer-connection',
  '--disable-features=WebRtcHideLocalIpsWithMdns',
];

export function chromiumArgs({ camera, autoAllowCamera }: ChromiumArgsOptions): string[] {
  const args = [...BASE_ARGS, '--use-fake-device-for-media-stream'];
  if (autoAllowCamera) args.push('--use-fake-ui-for-media-stream');
  if (camera) args.push(`--use-file-for-fake-video-capture=${cameraFile(camera)}`);
  return args;
}

export function launchOptions(options: ChromiumArgsOptions) {
  return { executablePath: chromiumExecutable(), args: chromiumArgs(options) };
}
