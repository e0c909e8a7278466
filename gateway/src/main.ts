/** Command-line entry: `pnpm start` (or `node --import tsx src/main.ts --help`). */
import { loadConfig } from './config.ts';
import { startGateway } from './gateway.ts';
import { createLogger } from './logger.ts';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const gateway = await startGateway(config, logger);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    gateway.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  console.error(`sightline gateway failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
