/**
 * Assembles a gateway from its configuration: models, inference workers, detector, HTTP app and
 * WebSocket endpoint on one port. Used by main.ts and by the integration tests.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { readPhoto } from '@sightline/shared/fixtures';
import type { Limits } from '@sightline/shared/protocol';
import type { GatewayConfig } from './config.ts';
import { createApp } from './http/app.ts';
import type { Logger } from './logger.ts';
import { createMetrics } from './metrics.ts';
import { ModelRegistry } from './models/model-registry.ts';
import { Detector } from './pipeline/detector.ts';
import { InferencePool } from './pipeline/inference-pool.ts';
import { attachSocketServer } from './ws/socket-server.ts';

export interface RunningGateway {
  server: Server;
  port: number;
  url: string;
  registry: ModelRegistry;
  close(): Promise<void>;
}

/**
 * Real frames through every stage before the first client: the sessions are already warm, but sharp,
 * the JIT and the worker hand-off are not, and would make the first answers slow. A real photo, so
 * the decoders, NMS and box mapping see detections; small and large, so both decode paths
 * (decode-image.ts) are compiled.
 */
async function warmUp(detector: Detector, registry: ModelRegistry): Promise<void> {
  const photo = readPhoto('dog.jpg');
  const frame = (width: number, height: number) => sharp(photo).resize(width, height, { fit: 'fill' }).jpeg().toBuffer();
  const images = await Promise.all([frame(320, 240), frame(640, 480)]);
  for (const model of registry.names) {
    for (const image of images) {
      for (let i = 0; i < 3; i++) await detector.detect({ image, model });
    }
  }
}

export async function startGateway(config: GatewayConfig, logger: Logger): Promise<RunningGateway> {
  const registry = await ModelRegistry.load(config.modelsDir, {
    defaultModel: config.defaultModel,
    scoreThreshold: config.scoreThreshold,
  });
  const metrics = createMetrics();
  const pool = await InferencePool.start({
    models: registry.specs,
    threads: config.threads,
    workers: config.workers,
    maxPending: config.maxPending,
    logger,
    onRun: (wide) => metrics.inferenceRuns.inc({ threads: wide ? 'all' : 'shared' }),
  });
  logger.info(
    { models: registry.names, defaultModel: registry.defaultModel, threads: config.threads, workers: config.workers },
    'models loaded',
  );

  const detector = new Detector(registry, pool, config.maxPixels);
  await warmUp(detector, registry);
  const limits: Limits = {
    maxMessageBytes: config.maxMessageBytes,
    maxPixels: config.maxPixels,
    maxInFlight: config.maxInFlight,
    queueLength: config.queueLength,
  };
  const app = createApp({ detector, registry, pool, metrics, logger, webDir: config.webDir, maxMessageBytes: config.maxMessageBytes });
  const server = createServer(app);
  const sockets = attachSocketServer(server, {
    detector,
    limits,
    defaultModel: registry.defaultModel,
    models: registry.names,
    maxConnections: config.maxConnections,
    logger,
    metrics,
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://localhost:${port}`;
  logger.info({ url, ws: `${url.replace('http', 'ws')}/ws` }, 'sightline gateway listening');

  return {
    server,
    port,
    url,
    registry,
    async close() {
      await sockets.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pool.close();
    },
  };
}
