/**
 * Webhook delivery to a real HTTP receiver on loopback: one signed POST per event, in order; a receiver that
 * answers 500 before it succeeds, or does not answer at all (the request times out), gets every event again until
 * it takes it, with the same id; a receiver down across a restart of the service gets what was stored.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StoredEvent } from '@sightline/shared/events';
import { EVENT_ID_HEADER, SIGNATURE_HEADER } from '../../../src/events/signature.ts';
import { WebhookReceiver } from '../../support/webhook-receiver.ts';
import { CrossingFeed, DOOR } from '../../unit/events/crossings.ts';
import { startEventsService, until, type RunningEvents } from './harness.ts';

const SECRET = 'webhook-test-secret';

describe('events over webhooks (real HTTP receiver)', () => {
  let dataDir: string;
  const cleanup: Array<() => Promise<unknown>> = [];
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'sightline-events-webhook-'));
  });
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const receiver = async (options: Parameters<typeof WebhookReceiver.start>[0]) => {
    const r = await WebhookReceiver.start(options);
    cleanup.push(() => r.close());
    return r;
  };
  const service = async (url: string, overrides: Record<string, unknown> = {}) => {
    const s = await startEventsService({ dataDir, webhookUrl: url, webhookSecret: SECRET, ...overrides });
    cleanup.push(() => s.stop());
    return s;
  };
  const stored = (s: RunningEvents): StoredEvent[] => s.events.store.after(0, 10_000);

  it('retries a receiver that answers 500 until it takes each event, in order, every request signed', async () => {
    const r = await receiver({ secret: SECRET, failFirst: 3 });
    const s = await service(r.url);
    await s.putRules('gate', DOOR);
    new CrossingFeed(s.events.consumer, 'gate', 1).crossMany(5);
    await r.until(() => r.delivered.length === 5);

    expect(r.delivered).toEqual(stored(s));
    expect(r.requests.map((q) => q.answer)).toEqual([500, 500, 500, 200, 200, 200, 200, 200]);
    // The first event was tried four times, the same event each time.
    const first = stored(s)[0]!;
    expect(r.requests.slice(0, 4).map((q) => JSON.parse(q.body) as StoredEvent)).toEqual(Array(4).fill(first));
    for (const q of r.requests) {
      expect(q.method).toBe('POST');
      expect(q.signed).toBe(true);
      expect(q.headers['content-type']).toBe('application/json');
      expect(q.headers[SIGNATURE_HEADER.toLowerCase()]).toMatch(/^sha256=[0-9a-f]{64}$/);
      expect(q.headers[EVENT_ID_HEADER.toLowerCase()]).toBe((JSON.parse(q.body) as StoredEvent).id);
    }
    await until(() => s.events.outboxes[0]!.backlog === 0, 'the cursor at the end');
  });

  it('retries a request the receiver never answers once it times out', async () => {
    const r = await receiver({ secret: SECRET, hangFirst: 1 });
    const s = await service(r.url, { webhookTimeoutMs: 300 });
    await s.putRules('gate', DOOR);
    new CrossingFeed(s.events.consumer, 'gate', 1).crossMany(2);
    await r.until(() => r.delivered.length === 2);
    expect(r.requests.map((q) => q.answer)).toEqual(['hung', 200, 200]);
    expect(JSON.parse(r.requests[0]!.body)).toEqual(r.delivered[0]);
    expect(r.delivered).toEqual(stored(s));
  });

  it('delivers after a restart of the service what a failing receiver had not taken', async () => {
    const failing = await receiver({ failFirst: 1_000_000 });
    const first = await service(failing.url);
    await first.putRules('gate', DOOR);
    new CrossingFeed(first.events.consumer, 'gate', 1).crossMany(4);
    await failing.until(() => failing.requests.length >= 2);
    await first.stop();

    const r = await receiver({ secret: SECRET });
    const second = await service(r.url);
    await r.until(() => r.delivered.length === 4);
    expect(r.delivered).toEqual(stored(second));
    expect(r.requests.every((q) => q.signed)).toBe(true);
  });
});
