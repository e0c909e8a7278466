/**
 * What the events integration tests share: an events service (no gateway) with its router on a loopback HTTP
 * server, fed synthetic tracked frames; an MQTT subscriber (mqtt.js) that records what it is sent; waiting for a
 * condition with a deadline that only bounds a failure.
 */
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { connectAsync, type IClientOptions, type MqttClient } from 'mqtt';
import type { CameraRules, StoredEvent } from '@sightline/shared/events';
import { cameraRulesPath } from '@sightline/shared/protocol';
import { parseConfig, type GatewayConfig } from '../../../src/config.ts';
import { startEvents, type EventsSeams, type EventsService } from '../../../src/events/index.ts';
import { createLogger } from '../../../src/logger.ts';
import { createMetrics, type Metrics } from '../../../src/metrics.ts';

/** Quick retries, so that a test waits on behaviour, not on production backoffs. */
export const TEST_SEAMS: EventsSeams = { mqttReconnectMs: 100, backoff: { initialMs: 20, maxMs: 200, jitter: 0 } };

export interface RunningEvents {
  events: EventsService;
  metrics: Metrics;
  url: string;
  putRules(camera: string, rules: CameraRules): Promise<void>;
  stop(): Promise<void>;
}

export async function startEventsService(overrides: Partial<GatewayConfig>, seams: EventsSeams = {}): Promise<RunningEvents> {
  const config = parseConfig({ logLevel: 'silent', instance: 'test-gw', ...overrides });
  const metrics = createMetrics(config.instance);
  const events = startEvents({ config, metrics, logger: createLogger(config.logLevel), seams: { ...TEST_SEAMS, ...seams } });
  const app = express();
  app.use(events.router);
  const server: Server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let stopped: Promise<void> | undefined;
  return {
    events,
    metrics,
    url,
    async putRules(camera, rules) {
      const answer = await fetch(url + cameraRulesPath(camera), {
        method: 'PUT',
        body: JSON.stringify(rules),
        headers: { 'content-type': 'application/json' },
      });
      if (answer.status !== 200) throw new Error(`PUT rules: ${answer.status} ${await answer.text()}`);
    },
    stop() {
      stopped ??= (async () => {
        await events.close();
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      })();
      return stopped;
    },
  };
}

/** Resolves once `test()` holds; the deadline only bounds a failure (generous: the machine is shared). */
export async function until(test: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export interface Received {
  topic: string;
  payload: string;
  retain: boolean;
}

/** An MQTT subscriber recording every message, in the order it came. */
export class Subscriber {
  readonly messages: Received[] = [];
  readonly client: MqttClient;

  private constructor(client: MqttClient) {
    this.client = client;
    client.on('message', (topic, payload, packet) =>
      this.messages.push({ topic, payload: payload.toString('utf8'), retain: packet.retain }),
    );
  }

  /**
   * Connects and subscribes at QoS 1. With `session` (a client id), the session is persistent (clean: false):
   * the broker queues what comes while the subscriber is away, and keeps it across its own restarts when it
   * persists.
   */
  static async connect(url: string, topics: string[], session?: string): Promise<Subscriber> {
    const options: IClientOptions = { reconnectPeriod: 100, connectTimeout: 5000, ...(session ? { clientId: session, clean: false } : {}) };
    const client = await connectAsync(url, options);
    client.on('error', () => {});
    const subscriber = new Subscriber(client);
    await client.subscribeAsync(topics, { qos: 1 });
    return subscriber;
  }

  /** The events received on `<prefix>/+/events`, duplicates included, in order. */
  get events(): StoredEvent[] {
    return this.messages.filter((m) => m.topic.endsWith('/events')).map((m) => JSON.parse(m.payload) as StoredEvent);
  }

  /** The distinct events received, each at its first arrival. */
  get distinct(): StoredEvent[] {
    const seen = new Set<string>();
    return this.events.filter((e) => !seen.has(e.id) && (seen.add(e.id), true));
  }

  /** The last message on `topic`. */
  last(topic: string): Received | undefined {
    return this.messages.findLast((m) => m.topic === topic);
  }

  async close(): Promise<void> {
    await this.client.endAsync(true);
  }
}
