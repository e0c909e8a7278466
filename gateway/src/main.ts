/** Command-line entry: `pnpm start` (or `node --import tsx src/main.ts --help`). */
import './runtime-check.ts';
import { loadConfig } from './config.ts';
import { startGateway } from './gateway.ts';
import { whenParentGone } from './launcher/parent-channel.ts';
import { StopRequests } from './launcher/stop-requests.ts';
import { createLogger } from './logger.ts';
import { startupBanner } from './startup-banner.ts';

async function main(): Promise<void> {
  const started = performance.now();
  const config = loadConfig();
  const logger = createLogger(config.logLevel, config.instance);
  // Started by the launcher (`pnpm start`) and the launcher is gone: a SIGTERM, so the port is freed and
  // nothing is orphaned. Sent to itself, it takes the handlers below once they are installed; before, while
  // models load, its default action ends the process at once (nothing to drain yet).
  whenParentGone(() => {
    logger.warn('the process that started the gateway is gone (its IPC channel closed): SIGTERM');
    process.kill(process.pid, 'SIGTERM');
  });
  const gateway = await startGateway(config, logger);
  if (config.logLevel !== 'silent') process.stderr.write(`${startupBanner(gateway, performance.now() - started)}\n`);

  // First signal: drain (answer what is in flight, close every connection) and exit 0.
  // Second signal: the operator does not want to wait: exit now. A copy of the first (the same request
  // delivered along two paths, within a second) is neither: stop-requests.ts.
  const requests = new StopRequests();
  const stop = (signal: NodeJS.Signals) => {
    const verdict = requests.classify();
    if (verdict === 'copy') {
      logger.debug({ signal }, 'stop signal again within a second of the first: taken as a copy of it, still draining');
      return;
    }
    if (verdict === 'exit-now') {
      logger.warn({ signal }, 'second signal: exiting without waiting for the drain');
      process.exit(1);
    }
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
  // The models directory again, now (the watcher does it by itself a moment after a change). SIGHUP to the
  // gateway itself; the launcher turns a SIGHUP sent to `pnpm start` (a terminal hang-up) into a SIGTERM.
  process.on('SIGHUP', () => {
    logger.info('SIGHUP: reading the models directory again');
    void gateway.reloadModels();
  });
}

main().catch((error: unknown) => {
  console.error(`sightline gateway failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
