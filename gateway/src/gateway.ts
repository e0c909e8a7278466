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
import { Lifecycle } from './lifecycle.ts';
import { FairScheduler } from './scheduling/fair-scheduler.ts';
import { attachSocketServer, type SocketServer } from './ws/socket-server.ts';

export interface DrainReport {
  /** `drained`: every connection closed by itself in time; `deadline`: what was left was cut off. */
  outcome: 'drained' | 'deadline';
  ms: number;
  /** WebSocket connections open when the drain began. */
  connections: number;
}

export interface RunningGateway {
  server: Server;
  port: number;
  url: string;
  registry: ModelRegistry;
  /**
   * Graceful shutdown: readiness fails at once, no new connections or requests; frames waiting are
   * answered `dropped` / `shutting_down`, frames and HTTP requests in flight finish and are answered,
   * then every socket closes (1001); whatever is still open at the deadline is cut. Inference workers
   * stop only once their runs have returned. Resolves when everything is closed; safe to call twice.
   */
  drain(deadlineMs: number): Promise<DrainReport>;
  /** drain() without waiting for anyone (tests). */
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
  const scheduler = new FairScheduler({
    capacity: config.maxProcessing ?? config.workers + 1,
    budgetMs: config.queueBudgetMs,
    maxWaiting: config.maxPending,
  });
  const lifecycle = new Lifecycle();
  const app = createApp({
    detector,
    registry,
    pool,
    scheduler,
    lifecycle,
    metrics,
    logger,
    webDir: config.webDir,
    maxMessageBytes: config.maxMessageBytes,
  });
  const server = createServer(app);
  const sockets = attachSocketServer(server, {
    detector,
    scheduler,
    limits,
    maxPending: config.maxPending,
    maxBufferedBytes: config.maxBufferedBytes,
    maxMessagesPerSecond: config.maxMessagesPerSecond,
    defaultModel: registry.defaultModel,
    models: registry.names,
    maxConnections: config.maxConnections,
    heartbeatMs: config.heartbeatMs,
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

  let drained: Promise<DrainReport> | undefined;
  const drain = (deadlineMs: number): Promise<DrainReport> => {
    drained ??= drainGateway({ server, sockets, pool, lifecycle, logger }, deadlineMs);
    return drained;
  };
  return { server, port, url, registry, drain, close: () => drain(0).then(() => undefined) };
}

interface DrainParts {
  server: Server;
  sockets: SocketServer;
  pool: InferencePool;
  lifecycle: Lifecycle;
  logger: Logger;
}

/** How often idle keep-alive connections are closed while draining: each one as soon as its last answer is out. */
const IDLE_SWEEP_MS = 50;

async function drainGateway({ server, sockets, pool, lifecycle, logger }: DrainParts, deadlineMs: number): Promise<DrainReport> {
  const started = performance.now();
  lifecycle.state = 'draining';
  const connections = sockets.connections;
  // No new connections from here on; 'close' comes once every connection (HTTP and WebSocket) has ended.
  const httpClosed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
  const everything = Promise.all([sockets.drain(), httpClosed]).then(() => 'drained' as const);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<'deadline'>((resolve) => (timer = setTimeout(() => resolve('deadline'), deadlineMs)));
  const outcome = await Promise.race([everything, deadline]);
  clearTimeout(timer);
  clearInterval(sweep);
  if (outcome === 'deadline') {
    logger.warn({ websockets: sockets.connections, deadlineMs }, 'drain deadline reached: closing what is left');
    sockets.terminateAll();
    server.closeAllConnections();
    await httpClosed;
  }
  await sockets.close();
  await pool.close();
  return { outcome, ms: Math.round(performance.now() - started), connections };
}
