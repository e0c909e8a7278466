/**
 * The events service: what sits behind the detections tap. Frames in (its TapConsumer), rules run per stream
 * (rule-runner.ts), each event given its `id`, written to the database with its count (event-store.ts), then
 * sent to the live SSE clients (event-stream.ts) and handed to the sinks (outbox.ts: MQTT, webhook), which
 * deliver from the database. The API (events-routes.ts) reads and replaces rules and reads counts and history.
 *
 * The database is `<dataDir>/events.sqlite`. Its errors never stop frames: an event that could not be stored is
 * logged and counted, and lost (it was never published either); a database that cannot be opened at all is
 * replaced by one in memory (the API works, nothing outlives the process), loudly.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Router } from 'express';
import {
  countKindOf,
  type CameraRules,
  type CameraRulesResponse,
  type DetectionEvent,
  type RuleEngineOptions,
  type RuleEvent,
  type StoredEvent,
} from '@sightline/shared/events';
import type { GatewayConfig } from '../config.ts';
import type { DetectionsTap, TapConsumer } from '../frames/detections-tap.ts';
import type { Logger } from '../logger.ts';
import type { Metrics } from '../metrics.ts';
import type { BackoffOptions } from './backoff.ts';
import { EventStore, type StoredRules } from './event-store.ts';
import { EventStream } from './event-stream.ts';
import { eventsRouter, type EventsApi } from './events-routes.ts';
import { MqttSink } from './mqtt-sink.ts';
import { Outbox, type Sink } from './outbox.ts';
import { startRetention } from './retention.ts';
import { RuleRunner } from './rule-runner.ts';
import { WebhookSink } from './webhook-sink.ts';

/** The settings the events service reads. */
export type EventsConfig = Pick<
  GatewayConfig,
  | 'dataDir'
  | 'instance'
  | 'eventsMaxAgeDays'
  | 'eventsMaxRows'
  | 'eventsBacklogMax'
  | 'mqttUrl'
  | 'mqttTopicPrefix'
  | 'mqttUsername'
  | 'mqttPassword'
  | 'mqttCa'
  | 'mqttDiscovery'
  | 'mqttDiscoveryPrefix'
  | 'webhookUrl'
  | 'webhookSecret'
  | 'webhookTimeoutMs'
>;

/** Seams for tests; the gateway passes none. */
export interface EventsSeams {
  /** The database file (default `<dataDir>/events.sqlite`). */
  dbPath?: string;
  backoff?: BackoffOptions;
  mqttReconnectMs?: number;
  heartbeatMs?: number;
  retentionPeriodMs?: number;
  maxStreams?: number;
  maxStreamBufferedBytes?: number;
  engine?: Partial<RuleEngineOptions>;
  /** The gateway's clock (ms since the epoch). */
  now?: () => number;
}

export interface EventsOptions {
  config: EventsConfig;
  metrics: Metrics;
  logger: Logger;
  /** Subscribed to at once when given (else subscribe `consumer` yourself). */
  tap?: DetectionsTap;
  seams?: EventsSeams;
}

export interface EventsService {
  /** For `DetectionsTap.subscribe`. */
  readonly consumer: TapConsumer;
  /** The events API (cameras, rules, counts, history, SSE), to mount after the HTTP guard. */
  readonly router: Router;
  /** The database (tests, and anything that reads the history in-process). */
  readonly store: EventStore;
  /** Delivery per sink: `mqtt`, `webhook` (those configured). */
  readonly outboxes: readonly Outbox[];
  /** The MQTT sink, when MQTT is on. */
  readonly mqtt: MqttSink | undefined;
  /** Ends every SSE stream (the start of a drain: long-lived responses would hold the HTTP server open). */
  closeStreams(): void;
  /**
   * Delivers what is waiting while sinks take it, for at most `deadlineMs`, then closes: what is left is
   * delivered by the next start. Call once frames stopped (the ways in drained); safe to call twice.
   */
  drain(deadlineMs: number): Promise<void>;
  /** Closes at once: no delivery waited for, the broker connection and the database closed. */
  close(): Promise<void>;
}

/** Largest PUT body of rules (32 lines and 32 zones of 64 points take about 60 KiB). */
const MAX_RULES_BODY_BYTES = 256 * 1024;
const MAX_STREAMS = 100;
const STREAM_BUFFERED_BYTES = 512 * 1024;
const HEARTBEAT_MS = 15_000;
const RETENTION_PERIOD_MS = 60_000;
const DAY_MS = 86_400_000;
/** Database failures are logged at most this often (each is counted). */
const ERROR_LOG_MS = 10_000;
const NO_RULES: CameraRules = { lines: [], zones: [] };

const hasRules = (rules: CameraRules) => rules.lines.length + rules.zones.length > 0;

export function startEvents({ config, metrics, logger: parentLogger, tap, seams = {} }: EventsOptions): EventsService {
  const logger = parentLogger.child({ component: 'events' });
  const now = seams.now ?? Date.now;
  let errorLoggedAt = -Infinity;
  const storeFailed = (operation: string, error: unknown) => {
    metrics.eventsStoreErrors.inc({ operation });
    const at = performance.now();
    if (at - errorLoggedAt < ERROR_LOG_MS) return;
    errorLoggedAt = at;
    logger.error({ err: error, operation }, 'events database operation failed');
  };

  const store = openStore(seams.dbPath ?? join(config.dataDir, 'events.sqlite'), config.eventsMaxRows, metrics, logger);
  let rules: Map<string, StoredRules>;
  try {
    rules = store.allRules();
  } catch (error) {
    storeFailed('rules', error);
    rules = new Map();
  }
  const rulesResponse = (camera: string): CameraRulesResponse => {
    const own = rules.get(camera);
    return own ? { camera, ...own.rules, updatedAt: own.updatedAt } : { camera, ...NO_RULES };
  };

  const stream = new EventStream({
    after: (since, limit, camera) => store.after(since, limit, camera),
    lastSeq: () => store.lastSeq,
    rules: (camera) =>
      camera === undefined
        ? [...rules.keys()].filter((name) => hasRules(rules.get(name)!.rules)).map(rulesResponse)
        : [rulesResponse(camera)],
    maxClients: seams.maxStreams ?? MAX_STREAMS,
    maxBufferedBytes: seams.maxStreamBufferedBytes ?? STREAM_BUFFERED_BYTES,
    heartbeatMs: seams.heartbeatMs ?? HEARTBEAT_MS,
    logger,
    onClients: (count) => metrics.eventStreams.set(count),
  });

  const mqtt = config.mqttUrl
    ? new MqttSink({
        url: config.mqttUrl,
        username: config.mqttUsername,
        password: config.mqttPassword,
        ca: config.mqttCa === undefined ? undefined : readFileSync(config.mqttCa),
        topicPrefix: config.mqttTopicPrefix,
        instance: config.instance,
        discoveryPrefix: config.mqttDiscovery ? config.mqttDiscoveryPrefix : undefined,
        state: {
          rules: () => new Map([...rules].map(([camera, own]) => [camera, own.rules])),
          counts: (camera, rule) => store.counts(camera, rule),
        },
        logger,
        onConnection: (connected) => metrics.mqttConnected.set(connected ? 1 : 0),
        ...(seams.mqttReconnectMs === undefined ? {} : { reconnectPeriodMs: seams.mqttReconnectMs }),
      })
    : undefined;
  const sinks: Sink[] = [
    ...(mqtt ? [mqtt] : []),
    ...(config.webhookUrl
      ? [
          new WebhookSink({
            url: config.webhookUrl,
            secret: config.webhookSecret,
            timeoutMs: config.webhookTimeoutMs,
            userAgent: `sightline-gateway (${config.instance})`,
          }),
        ]
      : []),
  ];
  const outboxes = sinks.map(
    (sink) =>
      new Outbox({
        store,
        sink,
        backlogMax: config.eventsBacklogMax,
        logger,
        metrics,
        now,
        ...(seams.backoff ? { backoff: seams.backoff } : {}),
      }),
  );

  let closed = false;
  /** Each event: an id, stored with its count, then to the live streams and the sinks. */
  const record = (made: RuleEvent[]) => {
    if (closed) return;
    for (const ruleEvent of made) {
      const event: DetectionEvent = { id: randomUUID(), ...ruleEvent };
      let stored: StoredEvent;
      try {
        stored = store.append(event, countKindOf(event), now());
      } catch (error) {
        storeFailed('append', error);
        continue;
      }
      metrics.events.inc({ camera: event.camera, type: event.type });
      stream.event(stored);
    }
    for (const outbox of outboxes) outbox.notify();
  };

  const runner = new RuleRunner({
    rulesOf: (camera) => {
      const own = rules.get(camera)?.rules;
      return own && hasRules(own) ? own : undefined;
    },
    record,
    logger,
    now,
    ...(seams.engine ? { engine: seams.engine } : {}),
  });

  /** A database read for the API: a failure is counted, then answered `internal` by the route. */
  const reading = <T>(operation: string, work: () => T): T => {
    try {
      return work();
    } catch (error) {
      storeFailed(operation, error);
      throw error;
    }
  };
  const api: EventsApi = {
    cameras: () => {
      const listed = reading('cameras', () => store.cameras());
      // A camera whose rules are in memory but whose row could not be written is listed too.
      const names = new Set(listed.map((camera) => camera.name));
      for (const [name, own] of rules) {
        if (!names.has(name)) listed.push({ name, lines: own.rules.lines.length, zones: own.rules.zones.length });
      }
      return { cameras: listed.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)) };
    },
    rules: rulesResponse,
    putRules: (camera, replacement) => {
      const before = rules.get(camera)?.rules ?? NO_RULES;
      const updatedAt = now();
      reading('rules', () => store.putRules(camera, replacement, updatedAt));
      rules.set(camera, { rules: replacement, updatedAt });
      runner.rulesReplaced(camera, hasRules(replacement) ? replacement : undefined);
      const response = rulesResponse(camera);
      stream.rules(response);
      mqtt?.rulesChanged(camera, before, replacement);
      logger.info({ camera, lines: replacement.lines.length, zones: replacement.zones.length }, 'camera rules replaced');
      return response;
    },
    counts: (camera) => ({ camera, counts: reading('counts', () => store.counts(camera)) }),
    events: (since, limit, camera) => reading('events', () => store.after(since, limit, camera)),
    stream,
  };

  const retention = startRetention({
    removeOlderThan: (cutoff, limit) => store.removeOlderThan(cutoff, limit),
    maxAgeMs: config.eventsMaxAgeDays * DAY_MS,
    periodMs: seams.retentionPeriodMs ?? RETENTION_PERIOD_MS,
    now,
    onError: (error) => storeFailed('retention', error),
  });

  const unsubscribe = tap?.subscribe(runner);
  logger.info(
    {
      database: seams.dbPath ?? join(config.dataDir, 'events.sqlite'),
      events: store.size,
      cameras: rules.size,
      sinks: sinks.map((sink) => sink.name),
    },
    'events ready',
  );

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      closed = true;
      unsubscribe?.();
      stream.close();
      retention.stop();
      await Promise.all(outboxes.map((outbox) => outbox.close()));
      await mqtt?.close();
      store.close();
    })();
    return closing;
  };

  return {
    consumer: runner,
    router: eventsRouter({ api, logger, maxBodyBytes: MAX_RULES_BODY_BYTES }),
    store,
    outboxes,
    mqtt,
    closeStreams: () => stream.close(),
    drain: async (deadlineMs) => {
      stream.close();
      if (!closing) {
        const flushed = await Promise.all(outboxes.map((outbox) => outbox.flush(deadlineMs)));
        const left = outboxes.filter((_outbox, i) => !flushed[i]).map((outbox) => ({ sink: outbox.name, backlog: outbox.backlog }));
        if (left.length > 0) logger.info({ left }, 'events not yet delivered are kept for the next start');
      }
      await close();
    },
    close,
  };
}

/** The database at `path`, or one in memory when it cannot be opened (said loudly: nothing will outlive the process). */
function openStore(path: string, maxRows: number, metrics: Metrics, logger: Logger): EventStore {
  const options = {
    maxRows,
    onRemoved: (reason: 'age' | 'rows', count: number) => metrics.eventsRetentionRemoved.inc({ reason }, count),
  };
  try {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    return new EventStore(path, options);
  } catch (error) {
    metrics.eventsStoreErrors.inc({ operation: 'open' });
    logger.error({ err: error, path }, 'events database could not be opened: events are kept in memory only, and lost at exit');
    return new EventStore(':memory:', options);
  }
}
