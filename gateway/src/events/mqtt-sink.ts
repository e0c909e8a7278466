/**
 * MQTT delivery (mqtt.js): events on `<prefix>/<camera>/events` at QoS 1, a batch at a time, acknowledged once the
 * broker has answered each PUBACK; after each batch, the counts of its rules (retained). On every connection:
 * `online` on the availability topic (retained; the last will says `offline`), the Home Assistant discovery
 * configs when asked for, and every rule's counts, so a broker that restarted without persistence is whole again.
 *
 * The client connects in the background and reconnects by itself: the gateway starts and serves frames with the
 * broker absent; events wait in the database (the outbox publishes only while connected). A batch in flight when
 * the connection drops stays in mqtt.js's store and is sent again on reconnection, where its acknowledgements
 * come; a gateway stopped meanwhile sends it again from the database (the same ids).
 */
import { connect, type IClientOptions, type MqttClient } from 'mqtt';
import type { CameraRules, RuleCount, StoredEvent } from '@sightline/shared/events';
import type { Logger } from '../logger.ts';
import { discoveryMessages, discoveryRemovals, kindsOf, type DiscoveryOptions } from './ha-discovery.ts';
import { availabilityTopic, countsPayload, countsTopic, eventsTopic, OFFLINE, ONLINE } from './mqtt-topics.ts';
import type { Sink } from './outbox.ts';

/** What the sink publishes besides events, read from the events database when needed. */
export interface MqttState {
  /** Every camera's rules. */
  rules(): ReadonlyMap<string, CameraRules>;
  counts(camera: string, rule: string): RuleCount[];
}

export interface MqttSinkOptions {
  url: string;
  username?: string | undefined;
  password?: string | undefined;
  /** The CA certificate (PEM) of an `mqtts://` broker. */
  ca?: string | Buffer | undefined;
  topicPrefix: string;
  /** This gateway's name: the availability topic and the client id. */
  instance: string;
  /** Home Assistant's discovery prefix, when discovery is on. */
  discoveryPrefix?: string | undefined;
  state: MqttState;
  logger: Logger;
  onConnection?: (connected: boolean) => void;
  /** Between connection attempts (ms). */
  reconnectPeriodMs?: number;
  connectTimeoutMs?: number;
}

/** Events published before their acknowledgements are awaited: one round trip for many. */
const BATCH = 100;
/** How long a clean stop waits for `offline` and the DISCONNECT to go out. */
const CLOSE_MS = 1000;

export class MqttSink implements Sink {
  readonly name = 'mqtt';
  readonly batchSize = BATCH;
  private readonly client: MqttClient;
  private readonly listeners: Array<() => void> = [];
  private readonly availability: string;
  private readonly discovery: DiscoveryOptions | undefined;
  /** Retained topics to empty on the next connection (rules removed while disconnected). */
  private readonly toClear = new Set<string>();
  private wasConnected = false;
  private complained = false;
  /** Closing on purpose: the connection's end is not news. */
  private closing = false;

  private readonly options: MqttSinkOptions;

  constructor(options: MqttSinkOptions) {
    this.options = options;
    this.availability = availabilityTopic(options.topicPrefix, options.instance);
    this.discovery =
      options.discoveryPrefix === undefined
        ? undefined
        : { discoveryPrefix: options.discoveryPrefix, topicPrefix: options.topicPrefix, instance: options.instance };
    const clientOptions: IClientOptions = {
      clientId: `sightline-${options.instance}`,
      clean: true,
      keepalive: 30,
      reconnectPeriod: options.reconnectPeriodMs ?? 1000,
      connectTimeout: options.connectTimeoutMs ?? 5000,
      // QoS 0 publishes are never queued while disconnected: nothing waits in memory but the outbox's batch.
      queueQoSZero: false,
      will: { topic: this.availability, payload: Buffer.from(OFFLINE), qos: 1, retain: true },
      ...(options.username === undefined ? {} : { username: options.username }),
      ...(options.password === undefined ? {} : { password: options.password }),
      ...(options.ca === undefined ? {} : { ca: options.ca }),
    };
    this.client = connect(options.url, clientOptions);
    this.client.on('connect', () => this.connected());
    this.client.on('close', () => {
      if (!this.wasConnected) return;
      this.wasConnected = false;
      options.onConnection?.(false);
      if (this.closing) return;
      options.logger.warn({ broker: safeUrl(options.url) }, 'MQTT broker connection lost: events wait in the database until it is back');
    });
    this.client.on('error', (error) => {
      // Every reconnection attempt fails the same way while the broker is away: said once per outage.
      if (this.complained) return options.logger.debug({ err: error }, 'MQTT connection attempt failed');
      this.complained = true;
      options.logger.warn(
        { broker: safeUrl(options.url), err: error },
        'MQTT broker unreachable: events wait in the database until it is back',
      );
    });
  }

  get ready(): boolean {
    return this.client.connected;
  }

  onReady(listener: () => void): void {
    this.listeners.push(listener);
  }

  deliver(events: readonly StoredEvent[], signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let waiting = events.length;
      let settled = false;
      const settle = (error?: Error) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', aborted);
        if (error) return reject(error);
        this.publishCounts(events);
        resolve();
      };
      const aborted = () => settle(new Error('delivery abandoned: the gateway is stopping'));
      signal.addEventListener('abort', aborted, { once: true });
      if (waiting === 0) return settle();
      for (const event of events) {
        this.client.publish(eventsTopic(this.options.topicPrefix, event.camera), JSON.stringify(event), { qos: 1 }, (error) => {
          if (error) settle(error);
          else if (--waiting === 0) settle();
        });
      }
    });
  }

  /** A camera's rules were replaced: its discovery configs and counts follow (removed rules' emptied). */
  rulesChanged(camera: string, before: CameraRules, after: CameraRules): void {
    const gone = [...before.lines, ...before.zones].map((rule) => rule.name).filter((name) => kindsOf(after, name).length === 0);
    for (const rule of gone) this.toClear.add(countsTopic(this.options.topicPrefix, camera, rule));
    if (this.discovery) for (const message of discoveryRemovals(this.discovery, camera, before, after)) this.toClear.add(message.topic);
    if (!this.client.connected) return;
    this.clearRemoved();
    if (this.discovery) for (const message of discoveryMessages(this.discovery, camera, after)) this.retain(message.topic, message.payload);
    this.publishRuleCounts(camera, after);
  }

  /** A clean stop: `offline`, then DISCONNECT (the broker does not send the last will). */
  async close(): Promise<void> {
    this.closing = true;
    if (this.client.connected) {
      await withTimeout(this.client.publishAsync(this.availability, OFFLINE, { qos: 1, retain: true }), CLOSE_MS).catch(() => {});
      await withTimeout(this.client.endAsync(false), CLOSE_MS).catch(() => {});
    }
    await this.client.endAsync(true).catch(() => {});
  }

  /** The connection cut without a word, as when the process dies: the broker publishes the last will (tests). */
  async terminate(): Promise<void> {
    this.closing = true;
    await this.client.endAsync(true).catch(() => {});
  }

  private connected(): void {
    const { logger, onConnection } = this.options;
    logger.info({ broker: safeUrl(this.options.url), availability: this.availability }, 'MQTT broker connected');
    this.wasConnected = true;
    this.complained = false;
    this.retain(this.availability, ONLINE);
    this.clearRemoved();
    try {
      for (const [camera, rules] of this.options.state.rules()) {
        if (this.discovery)
          for (const message of discoveryMessages(this.discovery, camera, rules)) this.retain(message.topic, message.payload);
        this.publishRuleCounts(camera, rules);
      }
    } catch (error) {
      logger.error({ err: error }, 'MQTT: rules and counts could not be read to publish them');
    }
    onConnection?.(true);
    for (const listener of this.listeners) listener();
  }

  private publishCounts(events: readonly StoredEvent[]): void {
    const rules = this.options.state.rules();
    const seen = new Set<string>();
    for (const event of events) {
      const key = JSON.stringify([event.camera, event.rule]);
      if (seen.has(key)) continue;
      seen.add(key);
      const own = rules.get(event.camera);
      if (own) this.publishCount(event.camera, own, event.rule);
    }
  }

  private publishRuleCounts(camera: string, rules: CameraRules): void {
    for (const name of new Set([...rules.lines, ...rules.zones].map((rule) => rule.name))) this.publishCount(camera, rules, name);
  }

  private publishCount(camera: string, rules: CameraRules, rule: string): void {
    const kinds = kindsOf(rules, rule);
    // A rule removed since its event: its counts went with it.
    if (kinds.length === 0) return;
    try {
      const payload = countsPayload(camera, rule, kinds, this.options.state.counts(camera, rule));
      this.retain(countsTopic(this.options.topicPrefix, camera, rule), JSON.stringify(payload));
    } catch (error) {
      this.options.logger.error({ err: error, camera, rule }, 'MQTT: counts could not be read to publish them');
    }
  }

  private clearRemoved(): void {
    for (const topic of this.toClear) this.retain(topic, '');
    this.toClear.clear();
  }

  /** State, not history: published retained at QoS 1, the latest wins; a failure is made good on the next connection. */
  private retain(topic: string, payload: string): void {
    this.client.publish(topic, payload, { qos: 1, retain: true }, () => {});
  }
}

/** The broker's URL without its password, for logs. */
function safeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'invalid URL';
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(new Error('timed out')), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
