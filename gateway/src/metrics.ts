/** Prometheus metrics, served at /metrics. */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export function createMetrics(instance?: string) {
  const registry = new Registry();
  // Every series names the replica, so dashboards over several gateways can tell them apart.
  if (instance) registry.setDefaultLabels({ gateway_instance: instance });
  collectDefaultMetrics({ register: registry, prefix: 'sightline_' });
  return {
    registry,
    frames: new Counter({
      name: 'sightline_frames_total',
      help: 'Frames answered, by transport, codec and outcome (detections, dropped, error code).',
      labelNames: ['transport', 'codec', 'outcome'] as const,
      registers: [registry],
    }),
    stageMs: new Histogram({
      name: 'sightline_stage_ms',
      help: 'Per-stage time of answered frames in milliseconds; runner "remote": inference is the round trip to the serving engine.',
      labelNames: ['stage', 'model', 'runner'] as const,
      buckets: [0.5, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024],
      registers: [registry],
    }),
    decodes: new Counter({
      name: 'sightline_decodes_total',
      help: 'Frames decoded, by decoder: "turbo" (libjpeg-turbo in an inference worker) or "sharp" (libvips).',
      labelNames: ['decoder'] as const,
      registers: [registry],
    }),
    inferenceRuns: new Counter({
      name: 'sightline_inference_runs_total',
      help: 'Inference runs by thread allotment: "all" (a frame alone, every intra-op thread) or "shared" (queued frames side by side).',
      labelNames: ['threads'] as const,
      registers: [registry],
    }),
    closes: new Counter({
      name: 'sightline_ws_closes_total',
      help: 'WebSocket connections the gateway closed, by reason: drain, slow_consumer, rate_limit, heartbeat, full, protocol.',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    engineUp: new Gauge({
      name: 'sightline_engine_up',
      help: 'Whether the remote inference engine answers for a model (1) or its circuit is open (0); models run locally have none.',
      labelNames: ['model'] as const,
      registers: [registry],
    }),
    connections: new Gauge({
      name: 'sightline_ws_connections',
      help: 'Open WebSocket connections.',
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/** Records one answered frame: its stage timings, which decoder took it, where its model ran. */
export function observeStages(
  metrics: Metrics,
  model: string,
  timings: Record<string, number>,
  frame: { decoder: string; runner: 'local' | 'remote' },
): void {
  for (const [stage, ms] of Object.entries(timings)) metrics.stageMs.observe({ stage, model, runner: frame.runner }, ms);
  metrics.decodes.inc({ decoder: frame.decoder });
}
