/**
 * Assembles a gateway from its configuration: models, inference workers, the one queue, the frame core, HTTP app and
 * WebSocket endpoint on one port. Used by main.ts and by the integration tests.
 */
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { DETECT_PATH, METRICS_PATH, V2_PATH, type AccessInfo, type Limits } from '@sightline/shared/protocol';
import type { FrameResult } from '@sightline/shared/model';
import { admitFrame, type FrameAdmissionDeps } from './admission/frame-admission.ts';
import type { GatewayConfig } from './config.ts';
import { createApp, metricsHandler } from './http/app.ts';
import type { Logger } from './logger.ts';
import { createMetrics, type Metrics } from './metrics.ts';
import { ModelRegistry } from './models/model-registry.ts';
import { ModelSync, type SyncReport } from './models/model-sync.ts';
import { watchModels } from './models/model-watcher.ts';
import { EngineMonitor } from './engines/engine-monitor.ts';
import { startEvents, type EventsService } from './events/index.ts';
import { DetectionsTap } from './frames/detections-tap.ts';
import { FrameService, type FrameScheduler } from './frames/frame-service.ts';
import type { PendingFrame } from './frames/pending-frame.ts';
import { InferenceExecutor, type DispatchGate } from './inference/inference-executor.ts';
import { Lifecycle } from './lifecycle.ts';
import { FairScheduler } from './scheduling/fair-scheduler.ts';
import { startIdleCollection } from './memory/idle-collection.ts';
import { ReceiveBudget } from './scheduling/receive-budget.ts';
import { AccessPolicy } from './security/access-policy.ts';
import { accessUrls, resolveExposure, warnAboutExposure, withoutToken, type Exposure } from './security/exposure.ts';
import { warmUp } from './warm-up.ts';
import { DecoderAllowance } from './sessions/video-stream.ts';
import type { SessionVideo } from './sessions/message-session.ts';
import { addressSpaceFor, describeConfinement, probeVideoDecoding, versionLabel } from './video/index.ts';
import { createWhipWay } from './whip/whip-way.ts';
import { socketWay } from './ws/socket-server.ts';
import { detectRouter } from './http/detect-route.ts';
import { v2Router } from './http/v2-routes.ts';
import { requestWay } from './ways/request-way.ts';
import { openByWay, type WayIn } from './ways/way-in.ts';

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
  /** Origin people on this machine can open (https when TLS is on), without the token. */
  url: string;
  registry: ModelRegistry;
  /** Every URL the gateway can be opened at, with the token where one is needed. */
  access: AccessInfo;
  exposure: Exposure;
  /** Every detected frame of a camera's stream passes here (the events subscribe; so may a test). */
  tap: DetectionsTap;
  /** Reads the models directory again and applies what changed (SIGHUP; the watcher does it by itself). */
  reloadModels(): Promise<SyncReport>;
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

/** How often a remote inference engine's readiness is asked, and how many failures in a row take it out. */
const ENGINE_PROBE_MS = 1000;
const ENGINE_FAILURES_TO_OPEN = 2;
const MIB = 1024 * 1024;

/** Seams for tests that drive a gateway in-process; the command line passes none. */
export interface GatewaySeams {
  /** Frames pass it before they reach an inference worker (open while the gateway warms up). */
  inferenceGate?: DispatchGate;
}

export async function startGateway(config: GatewayConfig, logger: Logger, seams: GatewaySeams = {}): Promise<RunningGateway> {
  const registry = new ModelRegistry({ defaultModel: config.defaultModel, scoreThreshold: config.scoreThreshold });
  const metrics = createMetrics(config.instance);
  const inference = await InferenceExecutor.start({
    threads: config.threads,
    workers: config.workers,
    maxPixels: config.maxPixels,
    turbo: config.jpegDecoder === 'turbo',
    engineTimeoutMs: config.inferenceTimeoutMs,
    stallMs: Math.max(config.inferenceStallMs, 2 * config.inferenceTimeoutMs),
    maxBatch: config.maxBatch,
    logger,
    onRun: (wide) => metrics.inferenceRuns.inc({ threads: wide ? 'all' : 'shared' }),
    ...(seams.inferenceGate ? { gate: seams.inferenceGate } : {}),
  });
  const modelSync = new ModelSync(config.modelsDir, registry, inference, logger, {
    maxModelBytes: config.maxModelMb * 1024 * 1024,
    engineUrl: config.inferenceUrl,
  });
  const engines = new EngineMonitor({
    probeMs: ENGINE_PROBE_MS,
    timeoutMs: Math.min(config.inferenceTimeoutMs, ENGINE_PROBE_MS),
    failureThreshold: ENGINE_FAILURES_TO_OPEN,
    logger,
    onChange: (model, up) => metrics.engineUp.set({ model }, up ? 1 : 0),
  });
  const syncModels = async (): Promise<SyncReport> => {
    const report = await modelSync.sync();
    engines.follow(registry.specs);
    return report;
  };
  await syncModels();
  engines.start();
  logger.info(
    {
      models: registry.names,
      unavailable: registry.problems,
      defaultModel: registry.defaultModel,
      threads: config.threads,
      workers: config.workers,
    },
    'models loaded',
  );

  const scheduler: FrameScheduler = new FairScheduler<PendingFrame, FrameResult>(
    { budgetMs: config.queueBudgetMs, maxWaiting: config.maxWaiting, memoryBudgetBytes: config.decodeBudgetMb * MIB },
    inference,
  );
  const admission: FrameAdmissionDeps = {
    registry,
    limits: { maxPixels: config.maxPixels, maxFrameDecodeBytes: config.frameDecodeMb * MIB },
    decodesJpeg: () => inference.decodesJpeg,
    engines,
  };
  const tap = new DetectionsTap();
  const frames = new FrameService(scheduler, (request) => admitFrame(request, admission), engines, tap);
  // Behind the tap: the cameras' rules, their events, the history and its delivery (MQTT, webhooks, SSE).
  const events = startEvents({ config, metrics, logger, tap });
  const idleCollection = startIdleCollection({
    load: () => scheduler.load,
    periodMs: IDLE_CHECK_MS,
    growthBytes: IDLE_COLLECT_GROWTH_MB * MIB,
    logger,
  });
  await warmUp(frames, registry.names, logger);
  const video = await videoOf(config, registry, engines, logger, metrics);
  const limits: Limits = {
    maxMessageBytes: config.maxMessageBytes,
    maxPixels: config.maxPixels,
    maxInFlight: config.maxInFlight,
    queueLength: config.queueLength,
    maxMessagesPerSecond: config.maxMessagesPerSecond,
    maxBufferedBytes: config.maxBufferedBytes,
    queueBudgetMs: config.queueBudgetMs,
  };
  const lifecycle = new Lifecycle();
  const receiveBudget = new ReceiveBudget(config.receiveBudgetMb * MIB);
  const exposure = await resolveExposure(config);
  warnAboutExposure(exposure, logger);

  const server: Server = exposure.tls ? createHttpsServer({ cert: exposure.tls.cert, key: exposure.tls.key }) : createServer();
  await listen(server, config.port, config.host);
  const port = (server.address() as AddressInfo).port;
  const scheme = exposure.tls ? 'https' : 'http';
  const policy = new AccessPolicy({
    scheme,
    port,
    token: exposure.token,
    names: exposure.names,
    allowedOrigins: config.allowedOrigins,
    allowedHosts: config.allowedHosts,
  });
  const access = accessUrls(exposure, scheme, port, config.host);
  const models = () => ({ defaultModel: registry.defaultModel ?? '', models: registry.names });
  const session = {
    frames,
    video,
    limits,
    maxBufferedBytes: config.maxBufferedBytes,
    maxMessagesPerSecond: config.maxMessagesPerSecond,
    models,
    instance: config.instance,
    policy,
    logger,
    metrics,
  };
  // Every way frames come in by, in one list: started on the listener and its routes, drained and closed alike.
  const ways: WayIn[] = [
    socketWay({
      ...session,
      maxConnections: config.maxConnections,
      maxConnectionsPerIp: config.maxConnectionsPerIp,
      trustProxy: config.trustProxy,
      heartbeatMs: config.heartbeatMs,
      receiveBudget,
    }),
    requestWay('http', DETECT_PATH, detectRouter({ ...session, maxMessageBytes: config.maxMessageBytes, receiveBudget })),
    requestWay('kserve-v2', V2_PATH, v2Router({ ...session, registry, engines, maxMessageBytes: config.maxMessageBytes, receiveBudget })),
  ];
  if (config.webrtcMaxPeers > 0)
    ways.push(
      createWhipWay({
        ...session,
        webrtc: {
          // Host candidates from the address the gateway listens on: loopback stays loopback.
          bindAddress: config.host,
          maxPeers: config.webrtcMaxPeers,
          iceServers: config.webrtcIceServers,
          ...(config.webrtcPorts ? { portRange: config.webrtcPorts } : {}),
        },
      }),
    );
  const waysRoutes = express.Router();
  const app = createApp({
    registry,
    inference,
    engines,
    lifecycle,
    metrics,
    logger,
    webDir: config.webDir,
    policy,
    access,
    secureCookie: scheme === 'https',
    serveMetrics: config.metricsPort === undefined,
    trustProxy: config.trustProxy,
    instance: config.instance,
    waysRoutes,
    apiRoutes: [events.router],
  });
  // Listening before the app is attached is safe: no request event can run before this synchronous code ends.
  server.on('request', app);
  for (const way of ways) way.start({ server, routes: waysRoutes });
  const metricsServer = config.metricsPort === undefined ? undefined : await startMetricsServer(metrics, config.metricsPort, config.host);

  const url = new URL(access.local[0]!).origin;
  logger.info(
    { urls: [...access.local, ...access.network].map(withoutToken), tls: exposure.tls?.source ?? 'off', token: exposure.tokenSource },
    'sightline gateway listening',
  );

  // A model folder added, replaced or removed takes effect without a restart (SIGHUP asks at once).
  const stopWatching = watchModels(config.modelsDir, () => void syncModels(), logger);
  let drained: Promise<DrainReport> | undefined;
  const drain = (deadlineMs: number): Promise<DrainReport> => {
    stopWatching();
    engines.stop();
    idleCollection.stop();
    drained ??= drainGateway({ server, ways, events, inference, lifecycle, logger }, deadlineMs);
    return drained;
  };
  return {
    server,
    port,
    url,
    registry,
    access,
    exposure,
    tap,
    reloadModels: syncModels,
    drain,
    close: () =>
      drain(0).then(async () => {
        await new Promise<void>((resolve) => (metricsServer ? metricsServer.close(() => resolve()) : resolve()));
      }),
  };
}

/** Video decoding as this machine offers it (an ffmpeg that runs, which codecs it decodes, on what hardware), or none. */
async function videoOf(
  config: GatewayConfig,
  registry: ModelRegistry,
  engines: EngineMonitor,
  logger: Logger,
  metrics: Metrics,
): Promise<SessionVideo | undefined> {
  if (config.maxVideoStreams === 0) return undefined;
  const decoding = await probeVideoDecoding({ ...(config.ffmpeg ? { ffmpegPath: config.ffmpeg } : {}), hwaccel: config.videoHwaccel });
  if (decoding.available) {
    const { ffmpeg, hardware } = decoding;
    const ffmpegVersion = versionLabel(ffmpeg);
    metrics.videoDecoderInfo.set({ implementation: 'ffmpeg-process', ffmpeg_version: ffmpegVersion, hardware: hardware.hardware }, 1);
    logger.info(
      {
        codecs: decoding.codecs,
        ffmpeg: ffmpeg.path,
        version: ffmpeg.version,
        source: ffmpeg.source,
        implementation: 'ffmpeg-process',
        ffmpegVersion,
        hardware: hardware.hardware,
        hardwareReason: hardware.reason,
        limits: describeConfinement(decoding.confinement, addressSpaceFor(hardware.hardware)),
      },
      'video decoding',
    );
    if (hardware.fellBack)
      logger.warn({ hwaccel: config.videoHwaccel, reason: hardware.reason }, 'video decoding: the GPU decoder asked for is not available');
    if (ffmpeg.outdated)
      logger.warn({ ffmpeg: ffmpeg.path, reason: ffmpeg.outdated }, 'video decoding: the configured ffmpeg is not a maintained version');
  } else {
    metrics.videoDecoderInfo.set({ implementation: 'none', ffmpeg_version: 'none', hardware: 'none' }, 1);
    logger.warn({ reason: decoding.reason }, 'video decoding unavailable: chunks are answered unsupported_codec');
  }
  return {
    decoding,
    decoders: new DecoderAllowance(config.maxVideoStreams),
    maxPixels: config.maxPixels,
    model: (name) => {
      const spec = registry.resolve(name);
      engines.check(spec.manifest.name);
      return spec;
    },
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

async function startMetricsServer(metrics: Metrics, port: number, host: string): Promise<Server> {
  const handler = metricsHandler(metrics);
  const server = createServer((request, response) => {
    if (request.url !== METRICS_PATH) {
      response.writeHead(404).end();
      return;
    }
    void handler(request as never, response as never);
  });
  await listen(server, port, host);
  return server;
}

interface DrainParts {
  server: Server;
  ways: readonly WayIn[];
  events: EventsService;
  inference: InferenceExecutor;
  lifecycle: Lifecycle;
  logger: Logger;
}

/** How often the gateway looks whether it went quiet; memory grown under load is collected 2-4 s after. */
const IDLE_CHECK_MS = 2000;
/** Growth since the last collection worth a full one when quiet (MiB): a few seconds of load at 500 frames/s. */
const IDLE_COLLECT_GROWTH_MB = 16;

/** What the event deliveries (MQTT, webhooks) may take of the drain at most: what is left is delivered after a restart. */
const EVENTS_DRAIN_MS = 1000;

/** How often idle keep-alive connections are closed while draining: each one as soon as its last answer is out. */
const IDLE_SWEEP_MS = 50;

async function drainGateway({ server, ways, events, inference, lifecycle, logger }: DrainParts, deadlineMs: number): Promise<DrainReport> {
  const started = performance.now();
  lifecycle.state = 'draining';
  // Event streams (SSE) never end by themselves: they would hold the listener's close until the deadline.
  events.closeStreams();
  const connections = ways.find((way) => way.name === 'websocket')?.open ?? 0;
  // No new connections from here on; 'close' comes once every connection (HTTP and WebSocket) has ended.
  const httpClosed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
  const everything = Promise.all([...ways.map((way) => way.drain()), httpClosed]).then(() => 'drained' as const);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<'deadline'>((resolve) => (timer = setTimeout(() => resolve('deadline'), deadlineMs)));
  const outcome = await Promise.race([everything, deadline]);
  clearTimeout(timer);
  clearInterval(sweep);
  if (outcome === 'deadline') {
    logger.warn({ open: openByWay(ways), deadlineMs }, 'drain deadline reached: closing what is left');
    await Promise.all(ways.map((way) => way.terminate()));
    server.closeAllConnections();
    await httpClosed;
  }
  await Promise.all(ways.map((way) => way.close()));
  // The last frames' events are stored; deliveries get what is left of the deadline, at most a second.
  await events.drain(Math.max(0, Math.min(EVENTS_DRAIN_MS, deadlineMs - (performance.now() - started))));
  await inference.close();
  return { outcome, ms: Math.round(performance.now() - started), connections };
}
