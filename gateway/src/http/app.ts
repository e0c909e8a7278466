/**
 * HTTP surface: probes, the access guard, the model list and model files, metrics, the routes of the ways in
 * (HTTP detection, KServe v2, WHIP: ways/), the events API, and the dashboard's static build.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import cors from 'cors';
import {
  ACCESS_PATH,
  HEALTH_PATH,
  METRICS_PATH,
  MODEL_FILE_PATH,
  MODELS_PATH,
  WHIP_PATH,
  type AccessInfo,
} from '@sightline/shared/protocol';
import { ProtocolError } from '@sightline/shared/validation';
import type { Lifecycle } from '../lifecycle.ts';
import type { Logger } from '../logger.ts';
import type { Metrics } from '../metrics.ts';
import type { ModelRegistry } from '../models/model-registry.ts';
import type { EngineMonitor } from '../engines/engine-monitor.ts';
import type { InferenceExecutor } from '../inference/inference-executor.ts';
import type { AccessPolicy } from '../security/access-policy.ts';
import { httpGuard } from './http-guard.ts';
import { securityHeaders } from '../security/security-headers.ts';
import { sendError } from '../frames/http-answers.ts';
import { modelFileHandler } from './model-file-route.ts';
import { healthRoute, probeRoutes } from './probes.ts';

export interface AppDependencies {
  registry: ModelRegistry;
  inference: InferenceExecutor;
  engines: EngineMonitor;
  lifecycle: Lifecycle;
  metrics: Metrics;
  logger: Logger;
  webDir: string;
  policy: AccessPolicy;
  /** What GET /api/access answers. */
  access: AccessInfo;
  /** Whether the token cookie may carry `Secure` (the page is served over HTTPS). */
  secureCookie: boolean;
  /** /metrics is served here (behind the token) unless it has a listener of its own. */
  serveMetrics: boolean;
  /** Proxies whose X-Forwarded-For names the client. */
  trustProxy: readonly string[];
  /** This gateway's name (GET /healthz). */
  instance: string;
  /** Where the ways in (ways/way-in.ts) mount their routes: behind the guard and the drain rule, before the dashboard. */
  waysRoutes: Router;
  /** Routes of the API beyond frames (the events'), behind the same guard and drain rule. */
  apiRoutes?: Router[];
}

const PLACEHOLDER_PAGE = `<!doctype html><meta charset="utf-8"><title>Sightline</title>
<body style="font-family:system-ui;background:#0f1115;color:#e6e6e6;padding:2rem">
<h1>Sightline gateway</h1><p>The dashboard has not been built. Run <code>pnpm start</code> (or <code>pnpm build</code>) at the repository root.</p>
<p>API: <a style="color:#7ab7ff" href="${MODELS_PATH}">${MODELS_PATH}</a>, <a style="color:#7ab7ff" href="${HEALTH_PATH}">${HEALTH_PATH}</a>.</p></body>`;

export function createApp(deps: AppDependencies): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.trustProxy.length > 0 ? [...deps.trustProxy] : false);

  app.use(securityHeaders());
  app.use(probeRoutes(deps));
  app.use(httpGuard(deps.policy, { secureCookie: deps.secureCookie }));
  const extraOrigins = deps.policy.options.allowedOrigins;
  // No CORS headers at all unless origins were allowed: the API is for this dashboard and for programs.
  if (extraOrigins.length > 0)
    app.use(
      ['/api', WHIP_PATH],
      cors({
        origin: [...extraOrigins],
        allowedHeaders: ['Authorization', 'Content-Type', 'Accept'],
        // A WHIP client reads where its session lives and which ICE servers to use.
        exposedHeaders: ['Location', 'Link', 'Retry-After'],
      }),
    );
  app.use(healthRoute(deps));

  // Draining: requests already in flight complete; new ones (on connections opened before) are turned
  // away with the reason, and their connection closes after the answer.
  app.use((_request: Request, response: Response, next: NextFunction) => {
    if (!deps.lifecycle.draining) return next();
    response.setHeader('Connection', 'close');
    sendError(response, new ProtocolError('overloaded', 'the gateway is shutting down; retry on another instance', undefined, 1000), {
      logger: deps.logger,
      context: 'request while draining',
    });
  });

  app.get(MODELS_PATH, (_request, response) => {
    response.json(deps.registry.describe());
  });

  app.get(MODEL_FILE_PATH, modelFileHandler(deps.registry, deps.logger));

  app.get(ACCESS_PATH, (_request, response) => {
    response.setHeader('Cache-Control', 'no-store');
    response.json(deps.access);
  });

  if (deps.serveMetrics) app.get(METRICS_PATH, metricsHandler(deps.metrics));

  for (const routes of deps.apiRoutes ?? []) app.use(routes);
  app.use(deps.waysRoutes);

  const indexHtml = join(deps.webDir, 'index.html');
  if (existsSync(indexHtml)) {
    app.use(express.static(deps.webDir, { index: 'index.html', maxAge: '1h', setHeaders: noCacheForHtml }));
  } else {
    deps.logger.warn({ webDir: deps.webDir }, 'dashboard build not found; serving a placeholder page');
    app.get('/', (_request, response) => {
      response.type('html').send(PLACEHOLDER_PAGE);
    });
  }

  // Body parser failures (too large, aborted) become protocol errors instead of HTML error pages.
  app.use((error: Error & { type?: string; status?: number }, _request: Request, response: Response, _next: NextFunction) => {
    const known =
      error.type === 'entity.too.large'
        ? new ProtocolError('too_large', error.message)
        : error.status && error.status < 500
          ? new ProtocolError('bad_message', error.message)
          : error;
    sendError(response, known, { logger: deps.logger, context: 'http request' });
  });

  return app;
}

export function metricsHandler(metrics: Metrics) {
  return async (_request: Request, response: Response) => {
    response.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  };
}

function noCacheForHtml(response: Response, path: string): void {
  // index.html names the hashed bundles of the current build: it must never be served stale.
  if (path.endsWith('.html')) response.setHeader('Cache-Control', 'no-cache');
}
