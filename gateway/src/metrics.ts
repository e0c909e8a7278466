/**
 * Prometheus metrics, served at /metrics, named by Prometheus' conventions
 * (https://prometheus.io/docs/practices/naming/): base units (seconds), `_total` on counters, none on gauges.
 * docs/DEPLOY.md#metrics lists every metric with its labels, and the names they replaced.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Upper bounds of the time histograms: 0.5 ms to about 1 s, doubling. */
const SECONDS_BUCKETS = [0.5, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024].map((ms) => ms / 1000);

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
    stageSeconds: new Histogram({
      name: 'sightline_stage_seconds',
      help: 'Time of answered frames in each stage (queue, decode, preprocess, inference, postprocess); runner "remote": inference is the round trip to the serving engine.',
      labelNames: ['stage', 'model', 'runner'] as const,
      buckets: SECONDS_BUCKETS,
      registers: [registry],
    }),
    // The whole stays apart from its stages, so that a sum over the stage label adds up to something.
    frameSeconds: new Histogram({
      name: 'sightline_frame_seconds',
      help: "Time of answered frames in the gateway, from a message's arrival to its reply handed to the socket.",
      labelNames: ['model', 'runner'] as const,
      buckets: SECONDS_BUCKETS,
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
      name: 'sightline_websocket_closes_total',
      help: 'WebSocket connections the gateway closed, by reason: drain, slow_consumer, rate_limit, heartbeat, full.',
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
      name: 'sightline_websocket_connections',
      help: 'Open WebSocket connections.',
      registers: [registry],
    }),
    webrtcPeers: new Gauge({
      name: 'sightline_webrtc_peers',
      help: 'WebRTC peers (WHIP sessions), from their offer to their close.',
      registers: [registry],
    }),
    events: new Counter({
      name: 'sightline_events_total',
      help: 'Events the rules made and the history stored, by camera and type (line_cross, zone_enter, zone_leave).',
      labelNames: ['camera', 'type'] as const,
      registers: [registry],
    }),
    eventsDelivered: new Counter({
      name: 'sightline_events_delivered_total',
      help: "Events a sink acknowledged (mqtt: the broker's PUBACK; webhook: a 2xx answer); a retried event counts again.",
      labelNames: ['sink'] as const,
      registers: [registry],
    }),
    eventsDeliveryFailures: new Counter({
      name: 'sightline_events_delivery_failures_total',
      help: 'Deliveries a sink failed (broker gone, webhook error or timeout), each retried with backoff.',
      labelNames: ['sink'] as const,
      registers: [registry],
    }),
    eventsDropped: new Counter({
      name: 'sightline_events_dropped_total',
      help: 'Events a sink will never get, by reason: backlog (more waiting than SIGHTLINE_EVENTS_BACKLOG_MAX, oldest first) or retention (removed from the history before delivery).',
      labelNames: ['sink', 'reason'] as const,
      registers: [registry],
    }),
    eventsBacklog: new Gauge({
      name: 'sightline_events_backlog',
      help: 'Events stored but not yet acknowledged by a sink.',
      labelNames: ['sink'] as const,
      registers: [registry],
    }),
    eventDeliverySeconds: new Histogram({
      name: 'sightline_event_delivery_seconds',
      help: "Time from the reply to the frame that made an event to the sink's acknowledgement of it (first delivery and retries).",
      labelNames: ['sink'] as const,
      buckets: SECONDS_BUCKETS,
      registers: [registry],
    }),
    eventsRetentionRemoved: new Counter({
      name: 'sightline_events_retention_removed_total',
      help: 'Events removed from the history by retention, by reason: age (SIGHTLINE_EVENTS_MAX_AGE_DAYS) or rows (SIGHTLINE_EVENTS_MAX_ROWS).',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    eventsStoreErrors: new Counter({
      name: 'sightline_events_store_errors_total',
      help: 'Operations on the events database that failed (logged; frames are still served), by operation.',
      labelNames: ['operation'] as const,
      registers: [registry],
    }),
    eventStreams: new Gauge({
      name: 'sightline_event_streams',
      help: 'Server-Sent Events clients of the event stream.',
      registers: [registry],
    }),
    videoDecoderInfo: new Gauge({
      name: 'sightline_video_decoder_info',
      help: 'What decodes video streams (1): implementation ("ffmpeg-process": one ffmpeg per stream; "none": video unavailable), the FFmpeg version, hardware (none, cuda, vaapi).',
      labelNames: ['implementation', 'ffmpeg_version', 'hardware'] as const,
      registers: [registry],
    }),
    mqttConnected: new Gauge({
      name: 'sightline_mqtt_connected',
      help: 'Whether the MQTT broker of the events is connected (1) or not (0; also when MQTT is off).',
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/**
 * Records one answered frame: its stage timings, which decoder took it, where its model ran. The timings are
 * the reply's, in milliseconds and named as on the wire (`decodeMs`, ..., `serverMs` for the whole).
 */
export function observeStages(
  metrics: Metrics,
  model: string,
  timings: Record<string, number>,
  frame: { decoder: string; runner: 'local' | 'remote' },
): void {
  for (const [name, ms] of Object.entries(timings)) {
    const seconds = ms / 1000;
    if (name === 'serverMs') metrics.frameSeconds.observe({ model, runner: frame.runner }, seconds);
    else metrics.stageSeconds.observe({ stage: name.replace(/Ms$/, ''), model, runner: frame.runner }, seconds);
  }
  metrics.decodes.inc({ decoder: frame.decoder });
}
