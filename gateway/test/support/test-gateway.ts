/** Starts a real gateway (real models, real inference worker) on an ephemeral loopback port. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig, type GatewayConfig } from '../../src/config.ts';
import { startGateway, type GatewaySeams, type RunningGateway } from '../../src/gateway.ts';
import { createLogger } from '../../src/logger.ts';

/**
 * A generous latency budget unless a test sets one: on a shared 2-core machine a burst of test frames may
 * wait longer than the production default, and only the overload tests are about that.
 */
export function startTestGateway(overrides: Partial<GatewayConfig> = {}, seams: GatewaySeams = {}): Promise<RunningGateway> {
  // A data folder of its own: the events' database of one test gateway is never another's (nor the user's).
  const dataDir = mkdtempSync(join(tmpdir(), 'sightline-test-data-'));
  const config = parseConfig({ port: 0, host: '127.0.0.1', logLevel: 'silent', queueBudgetMs: 10_000, dataDir, ...overrides });
  return startGateway(config, createLogger(config.logLevel), seams);
}
