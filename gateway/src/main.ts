/** Command-line entry: `pnpm start` (or `node --import tsx src/main.ts --help`). */
import './runtime-check.ts';
import { loadConfig } from './config.ts';
import { startGateway } from './gateway.ts';
import { createLogger } from './logger.ts';
import { startupBanner } from './startup-banner.ts';

async function main(): Promise<void> {
  const started = performance.now();
  const config = loadConfig();
  const logger = createLogger(config.logLevel, config.instance);
  const gateway = await startGateway(config, logger);
  if (config.logLevel !== 'silent') process.stderr.write(`${startupBanner(gateway, performance.now() - started)}\n`);

  // First signal: drain (answer what is in flight, close every connection) and exit 0.
  // Second signal: the operator does not want to wait: exit now.
  let draining = false;
  const stop = (signal: NodeJS.Signals) => {
    if (draining) {
      logger.warn({ signal }, 'second signal: exiting without waiting for the drain');
      process.exit(1);
    }
    draining = true;
    logger.info({ signal, deadlineMs: config.drainTimeoutMs }, 'draining: refusing new connections, answering what is in flight');
    gateway.drain(config.drainTimeoutMs).then(
      (report) => {
        logger.info(report, 'drained; exiting');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'drain failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // The models directory again, now (the watcher does it by itself a moment after a change).
  process.on('SIGHUP', () => {
    logger.info('SIGHUP: reading the models directory again');
    void gateway.reloadModels();
  });
}

main().catch((error: unknown) => {
  console.error(`sightline gateway failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
