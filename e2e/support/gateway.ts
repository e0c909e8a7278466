/**
 * The real gateway as a child process (the harness's `@sightline/harness/process`) with the
 * suite's settings: logs at info level in e2e/artifacts/gateway-*.log, the dashboard build of this run
 * (WEB_DIST), 60 s to become healthy. Started on a free port, stoppable and restartable on the same port
 * (reconnect tests).
 */
import { GatewayProcess as Gateway, type GatewayProcessOptions } from '@sightline/harness/process';
import { ARTIFACTS_DIR, WEB_DIST } from './paths.ts';

export { freePort } from '@sightline/harness/process';

export type GatewayOptions = Pick<GatewayProcessOptions, 'port' | 'env' | 'name' | 'host' | 'https' | 'token'>;

function withSuiteSettings({ env, ...options }: GatewayOptions): GatewayProcessOptions {
  return {
    ...options,
    env: { LOG_LEVEL: 'info', SIGHTLINE_WEB_DIR: WEB_DIST, ...env },
    logDir: ARTIFACTS_DIR,
    startTimeoutMs: 60_000,
  };
}

export type GatewayProcess = Gateway;

export const GatewayProcess = {
  /** A handle on a port, not started yet. */
  create: (options: GatewayOptions = {}): Promise<GatewayProcess> => Gateway.create(withSuiteSettings(options)),
  start: (options: GatewayOptions = {}): Promise<GatewayProcess> => Gateway.start(withSuiteSettings(options)),
};
