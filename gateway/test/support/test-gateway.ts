/** Starts a real gateway (real models, real inference worker) on an ephemeral loopback port. */
import { parseConfig, type GatewayConfig } from '../../src/config.ts';
import { startGateway, type RunningGateway } from '../../src/gateway.ts';
import { createLogger } from '../../src/logger.ts';

export function startTestGateway(overrides: Partial<GatewayConfig> = {}): Promise<RunningGateway> {
  const config = parseConfig({ port: 0, host: '127.0.0.1', logLevel: 'silent', ...overrides });
  return startGateway(config, createLogger(config.logLevel));
}
