/**
 * Health endpoints. /livez and /readyz are for orchestrators and load balancers, run no inference and
 * stay open without a token (they say nothing a prober should not know); /healthz is the summary for
 * people and simple checks, behind the token like the rest.
 *
 * - /livez: the process can serve requests (its event loop answers). Restart it only if this fails.
 * - /readyz: send it traffic: models loaded, inference workers up, a remote inference engine answering
 *   for every model it runs, not draining. 503 with the reason.
 */
import { Router } from 'express';
import {
  HEALTH_PATH,
  LIVE_PATH,
  PROTOCOL_VERSION,
  READY_PATH,
  V2_LIVE_PATH,
  V2_READY_PATH,
  type HealthResponse,
  type ReadinessResponse,
} from '@sightline/shared/protocol';
import type { Lifecycle } from '../lifecycle.ts';
import type { ModelRegistry } from '../models/model-registry.ts';
import type { EngineMonitor } from '../engines/engine-monitor.ts';
import type { InferenceExecutor } from '../inference/inference-executor.ts';

// Probes must never be cached by a proxy between the orchestrator and the gateway.
const noStore = (response: { setHeader(name: string, value: string): unknown }) => response.setHeader('Cache-Control', 'no-store');

export function probeRoutes(deps: {
  lifecycle: Lifecycle;
  inference: Pick<InferenceExecutor, 'healthy'>;
  registry: ModelRegistry;
  engines: EngineMonitor;
}): Router {
  const router = Router();
  const { lifecycle, inference, registry, engines } = deps;

  router.get(LIVE_PATH, (_request, response) => {
    noStore(response);
    response.json({ live: true });
  });

  const readiness = (): ReadinessResponse => {
    if (lifecycle.draining) return { ready: false, reason: 'draining: the gateway is shutting down' };
    if (!inference.healthy) return { ready: false, reason: 'inference workers are not all up' };
    if (registry.names.length === 0) return { ready: false, reason: 'no model can be served (GET /healthz says why)' };
    const [engine] = engines.problems;
    if (engine) return { ready: false, reason: `inference engine unavailable for ${engine.model}: ${engine.reason}` };
    return { ready: true };
  };

  router.get(READY_PATH, (_request, response) => {
    noStore(response);
    const body = readiness();
    response.status(body.ready ? 200 : 503).json(body);
  });

  // The same answers under the Open Inference Protocol's paths (KServe v2, what tritonclient asks).
  router.get(V2_LIVE_PATH, (_request, response) => {
    noStore(response);
    response.status(200).end();
  });
  router.get(V2_READY_PATH, (_request, response) => {
    noStore(response);
    const body = readiness();
    if (body.ready) response.status(200).end();
    else response.status(503).json({ error: body.reason });
  });

  return router;
}

export function healthRoute(deps: {
  lifecycle: Lifecycle;
  inference: Pick<InferenceExecutor, 'healthy'>;
  registry: ModelRegistry;
  instance: string;
}): Router {
  const router = Router();
  const { lifecycle, inference, registry, instance } = deps;
  router.get(HEALTH_PATH, (_request, response) => {
    noStore(response);
    const ok = inference.healthy && !lifecycle.draining;
    const body: HealthResponse = {
      ok,
      protocol: PROTOCOL_VERSION,
      state: lifecycle.state,
      instance,
      modelsLoaded: inference.healthy ? registry.names : [],
      modelsUnavailable: registry.problems,
      uptimeS: Math.round((Date.now() - lifecycle.startedAt) / 1000),
    };
    response.status(ok ? 200 : 503).json(body);
  });

  return router;
}
