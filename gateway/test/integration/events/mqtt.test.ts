/**
 * MQTT delivery against a real mosquitto on a loopback port: nothing lost and nothing out of order whether the
 * broker is absent when the events service starts, killed and restarted while events keep coming, or the
 * service itself restarted with events not yet delivered; counts retained; availability `online`, `offline` on a
 * clean stop and as the last will; Home Assistant discovery that follows the rules.
 *
 * The subscriber that checks delivery keeps a persistent session on a broker that persists it, so what the
 * gateway publishes while the subscriber is reconnecting waits for it: the tests assert on what the gateway
 * did, whichever of the two reconnects first.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StoredEvent } from '@sightline/shared/events';
import { Mosquitto } from '@sightline/harness/process';
import { CrossingFeed, DOOR } from '../../unit/events/crossings.ts';
import { startEventsService, Subscriber, until, type RunningEvents } from './harness.ts';

const EVENTS = 'sightline/+/events';

/** Every stored event reached the subscriber: each id at least once, first arrivals in seq order, one id per seq. */
function expectDelivered(received: StoredEvent[], stored: StoredEvent[]): void {
  const firsts = new Map<string, StoredEvent>();
  for (const e of received) if (!firsts.has(e.id)) firsts.set(e.id, e);
  expect([...firsts.values()].map((e) => e.seq)).toEqual(stored.map((e) => e.seq));
  expect([...firsts.keys()]).toEqual(stored.map((e) => e.id));
  // A duplicate (a retry) is the same event: the same id and seq, the same payload.
  for (const e of received) expect(e).toEqual(firsts.get(e.id));
}

describe('events over MQTT (real mosquitto)', () => {
  let dataDir: string;
  const cleanup: Array<() => Promise<unknown>> = [];
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'sightline-events-mqtt-'));
  });
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const broker = async (persistence: boolean, started = true) => {
    const b = await Mosquitto.prepare({ persistence });
    cleanup.push(() => b.dispose());
    if (started) await b.start();
    return b;
  };
  const service = async (url: string, overrides: Record<string, unknown> = {}) => {
    const s = await startEventsService({ dataDir, mqttUrl: url, ...overrides });
    cleanup.push(() => s.stop());
    return s;
  };
  const subscriber = async (url: string, topics: string[], session?: string) => {
    const s = await Subscriber.connect(url, topics, session);
    cleanup.push(() => s.close());
    return s;
  };
  /** A subscriber whose session (and QoS 1 queue) the broker keeps, with the broker then stopped (saved). */
  const sessionThenStop = async (b: Mosquitto) => {
    const s = await subscriber(b.url, [EVENTS], `checker-${Date.now()}`);
    await b.stop();
    return s;
  };
  const stored = (s: RunningEvents) => s.events.store.after(0, 10_000);

  it('starts with the broker absent, keeps the events, and delivers them in order once it is there', async () => {
    const b = await broker(true);
    const checker = await sessionThenStop(b);
    const s = await service(b.url);
    await s.putRules('gate', DOOR);
    const feed = new CrossingFeed(s.events.consumer, 'gate', 1);
    feed.crossMany(20);
    expect(stored(s)).toHaveLength(20);
    expect(s.events.outboxes[0]!.backlog).toBe(20);

    await b.start();
    await until(() => checker.distinct.length === 20, 'the 20 events kept while the broker was absent');
    feed.crossMany(5);
    await until(() => checker.distinct.length === 25, 'the events after it came');
    expectDelivered(checker.events, stored(s));
    await until(() => s.events.outboxes[0]!.backlog === 0, 'the cursor at the end');
  });

  it('loses nothing when the broker is killed and restarted while events keep coming', async () => {
    const b = await broker(true);
    const checker = await subscriber(b.url, [EVENTS], `checker-${Date.now()}`);
    // The subscriber's session on disk: a SIGKILL gives mosquitto no chance to write it.
    await b.save();
    const s = await service(b.url);
    await s.putRules('gate', DOOR);
    const feed = new CrossingFeed(s.events.consumer, 'gate', 1);
    await until(() => s.events.mqtt!.ready, 'the service connected');
    feed.crossMany(10);
    await until(() => checker.distinct.length === 10, 'the first 10');

    await b.kill();
    await until(() => !s.events.mqtt!.ready, 'the service to see the broker gone');
    feed.crossMany(10);
    await b.start();
    // Events keep coming while the service reconnects.
    feed.crossMany(10);
    await until(() => checker.distinct.length === 30, 'all 30 events');
    expectDelivered(checker.events, stored(s));
    expect(new Set(stored(s).map((e) => e.id)).size).toBe(30);
  });

  it('delivers after a restart of the service what it had stored and not delivered', async () => {
    const b = await broker(true);
    const checker = await sessionThenStop(b);
    const first = await service(b.url);
    await first.putRules('gate', DOOR);
    new CrossingFeed(first.events.consumer, 'gate', 1).crossMany(10);
    const before = stored(first);
    await first.stop();

    const second = await service(b.url);
    // Its rules came back from the database too.
    expect(second.events.consumer.wantsTracks('gate')).toBe(true);
    await b.start();
    await until(() => checker.distinct.length === 10, 'the 10 events of the first run');
    new CrossingFeed(second.events.consumer, 'gate', 2).crossMany(3);
    await until(() => checker.distinct.length === 13, 'the events of the second run');
    expect(stored(second).slice(0, 10)).toEqual(before);
    expectDelivered(checker.events, stored(second));
  });

  it('retains counts and availability, announces sensors to Home Assistant, and says offline when it goes', async () => {
    const b = await broker(false);
    const s = await service(b.url, { mqttDiscovery: true });
    await s.putRules('gate', DOOR);
    await until(() => s.events.mqtt!.ready, 'the service connected');
    new CrossingFeed(s.events.consumer, 'gate', 1).crossMany(3);
    await until(() => s.events.outboxes[0]!.backlog === 0, 'the events delivered');

    // A subscriber that comes later finds the state retained.
    const late = await subscriber(b.url, ['sightline/#', 'homeassistant/#']);
    const countsTopic = 'sightline/gate/counts/door';
    await until(() => JSON.parse(late.last(countsTopic)?.payload ?? '{}').totals?.in === 1, 'the retained counts');
    expect(JSON.parse(late.last(countsTopic)!.payload)).toEqual({
      camera: 'gate',
      rule: 'door',
      counts: { in: { person: 1 }, out: { person: 2 } },
      totals: { in: 1, out: 2 },
    });
    // Retained: a subscriber that comes now is sent it by the broker, flagged as such.
    const later = await subscriber(b.url, [countsTopic]);
    await until(() => later.messages.length > 0, 'the retained counts, again');
    expect(later.messages[0]).toMatchObject({ retain: true, payload: late.last(countsTopic)!.payload });
    await until(() => late.last('sightline/test-gw/availability')?.payload === 'online', 'availability online');
    const config = 'homeassistant/sensor/sightline_gate/door_out/config';
    await until(() => late.last(config) !== undefined, 'the discovery config');
    expect(JSON.parse(late.last(config)!.payload)).toMatchObject({
      state_topic: countsTopic,
      availability_topic: 'sightline/test-gw/availability',
      unique_id: 'sightline_gate_door_out',
    });

    // The rule replaced: its sensors and retained counts are emptied, the new one's announced.
    await s.putRules('gate', { lines: [{ name: 'exit', from: [0, 0.5], to: [1, 0.5] }], zones: [] });
    await until(() => late.last(config)?.payload === '', 'the removed sensor emptied');
    await until(() => late.last(countsTopic)?.payload === '', 'the removed counts emptied');
    await until(() => late.last('homeassistant/sensor/sightline_gate/exit_in/config') !== undefined, 'the new sensor');
    await until(() => late.last('sightline/gate/counts/exit') !== undefined, 'the new counts (zero)');
    expect(JSON.parse(late.last('sightline/gate/counts/exit')!.payload).totals).toEqual({ in: 0, out: 0 });

    // Gone without a word (a crash): the broker publishes the last will.
    await s.events.mqtt!.terminate();
    await until(() => late.last('sightline/test-gw/availability')?.payload === 'offline', 'the last will');
    const after = await subscriber(b.url, ['sightline/test-gw/availability']);
    await until(() => after.messages.length > 0, 'the retained availability');
    expect(after.messages[0]).toMatchObject({ retain: true, payload: 'offline' });
  });

  it('says offline itself on a clean stop', async () => {
    const b = await broker(false);
    const s = await service(b.url, { instance: 'clean-gw' });
    await until(() => s.events.mqtt!.ready, 'the service connected');
    const watcher = await subscriber(b.url, ['sightline/clean-gw/availability']);
    await until(() => watcher.last('sightline/clean-gw/availability')?.payload === 'online', 'online');
    await s.stop();
    await until(() => watcher.last('sightline/clean-gw/availability')?.payload === 'offline', 'offline');
  });
});
