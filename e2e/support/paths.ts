import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const E2E_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const REPO_ROOT = resolve(E2E_DIR, '..');
export const GATEWAY_DIR = join(REPO_ROOT, 'gateway');
export const WEB_DIR = join(REPO_ROOT, 'web');
export const ARTIFACTS_DIR = join(E2E_DIR, 'artifacts');
/**
 * The dashboard build the tests' gateways serve (SIGHTLINE_WEB_DIR). Our own copy, not web/dist: the web
 * engineer's `vite build` empties web/dist, and a test run must not see that happen mid-test (it did:
 * "Cannot GET /").
 */
export const WEB_DIST = join(ARTIFACTS_DIR, 'web-dist');
export const SCREENSHOTS_DIR = join(ARTIFACTS_DIR, 'screenshots');
