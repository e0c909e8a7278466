/**
 * A sink's delivery from the database: in seq order, each batch acknowledged before the cursor moves (and the
 * cursor kept in the database); a failure retried from the cursor with backoff; a sink not ready waited for; a
 * new event delivered at once, with no timer involved; a backlog past its limit and events retention removed
 * skipped oldest first, counted; a restart resuming from the cursor kept.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { countKindOf, type StoredEvent } from '@sightline/shared/events';
import { EventStore } from '../../../src/events/event-store.ts';
import { Outbox, type Sink } from '../../../src/events/outbox.ts';
import { createLogger } from '../../../src/logger.ts';
import { createMetrics, type Metrics } from '../../../src/metrics.ts';
import { detectionEvent } from './sample-event.ts';

const logger = createLogger('silent');
const FAST = { initialMs: 5, maxMs: 20, jitter: 0 };

/** A sink the test drives: records each batch; fails while `failing`; ready while `up`. */
class FakeSink implements Sink {
  readonly name = 'fake';
  readonly batchSize: number;
  up = true;
  failing = 0;
  readonly tries: number[][] = [];
  readonly delivered: StoredEvent[] = [];
  private readonly listeners: Array<() => void> = [];
  private delivering: Array<() => void> | undefined;

  constructor(batchSize = 10) {
    this.batchSize = batchSize;
  }
  get ready(): boolean {
    return this.up;
  }
  onReady(listener: () => void): void {
    this.listeners.push(listener);
  }
  comeUp(): void {
    this.up = true;
    for (const listener of this.listeners) listener();
  }
  /** Holds deliveries until `release()`. */
  hold(): void {
    this.delivering = [];
  }
  release(): void {
    const held = this.delivering ?? [];
    this.delivering = undefined;
    for (const go of held) go();
  }
  async deliver(events: readonly StoredEvent[], signal: AbortSignal): Promise<void> {
    this.tries.push(events.map((e) => e.seq));
    if (this.delivering) await new Promise<void>((resolve) => this.delivering!.push(resolve));
    if (signal.aborted) throw new Error('aborted');
    if (this.failing > 0) {
      this.failing -= 1;
      throw new Error('down');
    }
    this.delivered.push(...events);
  }
}

async function until(test: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** The value of one series of a metric. */
async function value(metrics: Metrics, name: string, labels: Record<string, string>): Promise<number> {
  const family = (await metrics.registry.getMetricsAsJSON()).find((f) => f.name === name);
  const sample = family?.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l));
  return sample?.value ?? 0;
}

describe('Outbox', () => {
  const opened: Array<{ close(): unknown }> = [];
  const store = (maxRows = 10_000) => {
    const s = new EventStore(':memory:', { maxRows });
    opened.push(s);
    return s;
  };
  const outbox = (options: { store: EventStore; sink: Sink; backlogMax?: number; metrics?: Metrics }) => {
    const o = new Outbox({ backlogMax: 1000, logger, metrics: createMetrics(), backoff: FAST, ...options });
    opened.unshift(o);
    return o;
  };
  const add = (s: EventStore, count: number, camera = 'gate') => {
    for (let i = 0; i < count; i += 1) {
      const e = detectionEvent({ camera });
      s.append(e, countKindOf(e), Date.now());
    }
  };
  afterEach(async () => {
    vi.useRealTimers();
    for (const o of opened.splice(0)) await o.close();
  });

  it('starts a sink never seen at the newest event, delivers what comes after in order, and keeps its cursor', async () => {
    const s = store();
    add(s, 3);
    const sink = new FakeSink(2);
    const box = outbox({ store: s, sink });
    expect(box.delivered).toBe(3);
    expect(s.cursor('fake')).toBe(3);
    add(s, 5);
    box.notify();
    await until(() => sink.delivered.length === 5, 'five events');
    expect(sink.delivered.map((e) => e.seq)).toEqual([4, 5, 6, 7, 8]);
    expect(sink.tries).toEqual([[4, 5], [6, 7], [8]]);
    expect(s.cursor('fake')).toBe(8);
    expect(box.backlog).toBe(0);
  });

  it('delivers a new event at once: no timer has to fire', async () => {
    const s = store();
    const sink = new FakeSink();
    const box = outbox({ store: s, sink });
    vi.useFakeTimers();
    add(s, 1);
    box.notify();
    // Promise jobs only: the loop wakes, reads and delivers without any timer running.
    for (let i = 0; i < 10 && sink.delivered.length === 0; i += 1) await Promise.resolve();
    expect(sink.delivered.map((e) => e.seq)).toEqual([1]);
  });

  it('retries a failed batch from the cursor, the same events again, until it is acknowledged', async () => {
    const s = store();
    const sink = new FakeSink(10);
    const metrics = createMetrics();
    const box = outbox({ store: s, sink, metrics });
    sink.failing = 3;
    add(s, 4);
    box.notify();
    await until(() => sink.delivered.length === 4, 'the batch');
    expect(sink.tries).toEqual([
      [1, 2, 3, 4],
      [1, 2, 3, 4],
      [1, 2, 3, 4],
      [1, 2, 3, 4],
    ]);
    expect(sink.delivered.map((e) => e.id)).toEqual(s.after(0, 10).map((e) => e.id));
    expect(await value(metrics, 'sightline_events_delivery_failures_total', { sink: 'fake' })).toBe(3);
    expect(await value(metrics, 'sightline_events_delivered_total', { sink: 'fake' })).toBe(4);
  });

  it('waits for a sink that is not ready, and delivers when it says it is', async () => {
    const s = store();
    const sink = new FakeSink();
    sink.up = false;
    const box = outbox({ store: s, sink });
    add(s, 2);
    box.notify();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(sink.tries).toEqual([]);
    expect(box.backlog).toBe(2);
    sink.comeUp();
    await until(() => sink.delivered.length === 2, 'delivery once ready');
  });

  it('drops the oldest events past the backlog limit for a sink that is away, counts and skips them', async () => {
    const s = store();
    const sink = new FakeSink(100);
    sink.up = false;
    const metrics = createMetrics();
    const box = outbox({ store: s, sink, backlogMax: 5, metrics });
    add(s, 12);
    box.notify();
    await until(() => box.backlog === 5, 'the backlog bounded');
    expect(await value(metrics, 'sightline_events_dropped_total', { sink: 'fake', reason: 'backlog' })).toBe(7);
    expect(await value(metrics, 'sightline_events_backlog', { sink: 'fake' })).toBe(5);
    sink.comeUp();
    await until(() => sink.delivered.length === 5, 'the newest five');
    expect(sink.delivered.map((e) => e.seq)).toEqual([8, 9, 10, 11, 12]);
  });

  it('skips, and counts, events retention removed before the sink had them', async () => {
    const s = store(4);
    const sink = new FakeSink(100);
    sink.up = false;
    const metrics = createMetrics();
    const box = outbox({ store: s, sink, metrics });
    add(s, 10);
    box.notify();
    sink.comeUp();
    await until(() => sink.delivered.length === 4, 'what is left');
    expect(sink.delivered.map((e) => e.seq)).toEqual([7, 8, 9, 10]);
    expect(await value(metrics, 'sightline_events_dropped_total', { sink: 'fake', reason: 'retention' })).toBe(6);
  });

  it('resumes from the cursor it kept after a restart: a batch in flight at the stop is delivered again', async () => {
    const s = store();
    const first = new FakeSink(3);
    const box = outbox({ store: s, sink: first });
    add(s, 3);
    box.notify();
    await until(() => first.delivered.length === 3, 'the first three');
    first.hold();
    add(s, 3);
    box.notify();
    await until(() => first.tries.length === 2, 'the second batch in flight');
    await box.close();
    first.release();
    expect(s.cursor('fake')).toBe(3);

    const second = new FakeSink(10);
    outbox({ store: s, sink: second });
    await until(() => second.delivered.length === 3, 'the rest after the restart');
    expect(second.delivered.map((e) => e.seq)).toEqual([4, 5, 6]);
  });

  it('flush resolves once everything is delivered, and at once for a sink that is away', async () => {
    const s = store();
    const sink = new FakeSink(1);
    const box = outbox({ store: s, sink });
    add(s, 5);
    box.notify();
    expect(await box.flush(10_000)).toBe(true);
    expect(sink.delivered).toHaveLength(5);
    sink.up = false;
    add(s, 1);
    box.notify();
    expect(await box.flush(10_000)).toBe(false);
  });
});
