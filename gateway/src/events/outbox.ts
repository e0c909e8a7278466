/**
 * One sink's delivery from the events database (the outbox): a cursor (the seq up to which the sink acknowledged
 * everything, kept in the database), and a loop that hands the sink the next few events after it, in seq order,
 * and moves the cursor once they are acknowledged. So delivery is at least once and in order (per camera, as
 * overall): a failure is retried from the cursor, after a backoff; a gateway restarted starts from the cursor it
 * kept; an event retried carries the same `id`.
 *
 * Fast: a new event wakes the loop at once (`notify`), no polling. Bounded: nothing is held but the batch in
 * delivery; events waiting past `backlogMax` are skipped oldest first (counted, logged), as are events retention
 * removed before the sink got them.
 */
import type { StoredEvent } from '@sightline/shared/events';
import type { Logger } from '../logger.ts';
import type { Metrics } from '../metrics.ts';
import { backoffDelay, DEFAULT_BACKOFF, type BackoffOptions } from './backoff.ts';

export interface Sink {
  /** `mqtt`, `webhook`: the metrics' label and the cursor's key. */
  readonly name: string;
  /** Events handed to one `deliver` at most. */
  readonly batchSize: number;
  /** Whether a delivery may be tried now (MQTT: connected); a sink that was not calls its `onReady` listener when it is. */
  readonly ready: boolean;
  onReady(listener: () => void): void;
  /** Resolves once every event is acknowledged; rejects if any is not (the batch is retried). Rejects on `signal`. */
  deliver(events: readonly StoredEvent[], signal: AbortSignal): Promise<void>;
}

/** What an outbox reads and writes of the events database. */
export interface OutboxStore {
  readonly lastSeq: number;
  readonly firstSeq: number;
  after(since: number, limit: number): StoredEvent[];
  cursor(sink: string): number | undefined;
  setCursor(sink: string, seq: number): void;
}

export type OutboxMetrics = Pick<
  Metrics,
  'eventsDelivered' | 'eventsDeliveryFailures' | 'eventsDropped' | 'eventsBacklog' | 'eventDeliverySeconds' | 'eventsStoreErrors'
>;

export interface OutboxOptions {
  store: OutboxStore;
  sink: Sink;
  /** Events waiting for this sink at most; past it the oldest are dropped for it. */
  backlogMax: number;
  logger: Logger;
  metrics: OutboxMetrics;
  backoff?: BackoffOptions;
  /** The clock of `detectedAt` (ms since the epoch), for the delivery time. */
  now?: () => number;
}

/** How often a sink's dropped events are logged at most: once the backlog is full, every new event drops one. */
const DROP_LOG_MS = 10_000;

interface Waiter {
  done: () => void;
  /** Whether a new event ends the wait (not while backing off). */
  onNews: boolean;
}

export class Outbox {
  private cursor: number;
  private failures = 0;
  private closed = false;
  private readonly abort = new AbortController();
  private waiter: Waiter | undefined;
  private idle: Array<() => void> = [];
  private readonly drops = { unlogged: 0, loggedAt: -Infinity };
  private readonly running: Promise<void>;
  private readonly now: () => number;
  /** Rejects on close: a delivery in flight is not waited for, whether or not the sink heeds the signal. */
  private readonly stopped: Promise<never>;

  private readonly options: OutboxOptions;

  constructor(options: OutboxOptions) {
    this.options = options;
    this.now = options.now ?? Date.now;
    const { store, sink } = options;
    const kept = this.read('cursor', () => store.cursor(sink.name));
    // A sink seen for the first time starts with the events to come: configuring a webhook does not replay the history.
    this.cursor = Math.min(kept ?? store.lastSeq, store.lastSeq);
    if (kept === undefined) this.save();
    this.stopped = new Promise<never>((_resolve, reject) =>
      this.abort.signal.addEventListener('abort', () => reject(new Error('outbox closed')), { once: true }),
    );
    this.stopped.catch(() => {});
    sink.onReady(() => this.waiter?.done());
    // Nothing in the loop should throw; if something does, delivery stops with a log line, the gateway goes on.
    this.running = this.run().catch((error: unknown) => options.logger.error({ err: error, sink: sink.name }, 'event delivery stopped'));
  }

  get name(): string {
    return this.options.sink.name;
  }

  /** Events stored and not yet acknowledged by this sink. */
  get backlog(): number {
    return Math.max(0, this.options.store.lastSeq - this.cursor);
  }

  /** The seq up to which the sink acknowledged everything. */
  get delivered(): number {
    return this.cursor;
  }

  /** A new event was stored: deliver it now (unless backing off after a failure). */
  notify(): void {
    if (this.waiter?.onNews) this.waiter.done();
  }

  /** Resolves true once everything stored is delivered, false at the deadline or at once if the sink is not ready. */
  async flush(deadlineMs: number): Promise<boolean> {
    if (this.backlog === 0) return true;
    if (!this.options.sink.ready || this.closed) return false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const caughtUp = new Promise<boolean>((resolve) => this.idle.push(() => resolve(true)));
    const deadline = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), deadlineMs)));
    const result = await Promise.race([caughtUp, deadline]);
    clearTimeout(timer);
    return result || this.backlog === 0;
  }

  /** Stops delivering (a delivery in flight is abandoned: it is retried from the cursor by the next start). */
  async close(): Promise<void> {
    this.closed = true;
    this.abort.abort();
    this.waiter?.done();
    await this.running;
  }

  private async run(): Promise<void> {
    const { store, sink, logger, metrics } = this.options;
    while (!this.closed) {
      this.bound();
      if (this.cursor >= store.lastSeq || !sink.ready) {
        if (this.cursor >= store.lastSeq) this.settleIdle();
        await this.wait(undefined, true);
        continue;
      }
      const batch = this.read('read', () => store.after(this.cursor, sink.batchSize));
      if (batch === undefined) {
        await this.wait(this.nextBackoff(), false);
        continue;
      }
      const last = batch.at(-1);
      if (last === undefined) {
        // Nothing after the cursor although seq went on: not the sink's to wait for.
        this.advance(store.lastSeq);
        continue;
      }
      try {
        await Promise.race([sink.deliver(batch, this.abort.signal), this.stopped]);
      } catch (error) {
        if (this.closed) break;
        metrics.eventsDeliveryFailures.inc({ sink: sink.name });
        const delayMs = this.nextBackoff();
        const fields = { sink: sink.name, failures: this.failures, retryInMs: delayMs, err: error };
        if (this.failures === 1) logger.warn(fields, 'event delivery failed; retrying with backoff');
        else logger.debug(fields, 'event delivery failed again');
        await this.wait(delayMs, false);
        continue;
      }
      if (this.failures > 0) logger.info({ sink: sink.name, failures: this.failures }, 'event delivery recovered');
      this.failures = 0;
      const now = this.now();
      metrics.eventsDelivered.inc({ sink: sink.name }, batch.length);
      for (const event of batch) metrics.eventDeliverySeconds.observe({ sink: sink.name }, Math.max(0, now - event.detectedAt) / 1000);
      this.advance(last.seq);
    }
    this.settleIdle();
  }

  /** Skips what the sink can no longer get (removed by retention) and what is past its backlog (oldest first). */
  private bound(): void {
    const { store, sink, backlogMax, metrics } = this.options;
    const removedThrough = store.firstSeq - 1;
    if (this.cursor < removedThrough) {
      this.drop(removedThrough - this.cursor, 'retention');
      this.advance(removedThrough);
    }
    const backlog = store.lastSeq - this.cursor;
    if (backlog > backlogMax) {
      this.drop(backlog - backlogMax, 'backlog');
      this.advance(store.lastSeq - backlogMax);
    }
    metrics.eventsBacklog.set({ sink: sink.name }, this.backlog);
  }

  private drop(count: number, reason: 'backlog' | 'retention'): void {
    const { sink, logger, metrics, backlogMax } = this.options;
    metrics.eventsDropped.inc({ sink: sink.name, reason }, count);
    this.drops.unlogged += count;
    const now = performance.now();
    if (now - this.drops.loggedAt < DROP_LOG_MS) return;
    logger.warn(
      { sink: sink.name, reason, dropped: this.drops.unlogged, backlogMax },
      reason === 'backlog'
        ? 'events dropped for a sink that has not acknowledged them: its backlog is full (oldest first)'
        : 'events removed by retention before a sink acknowledged them',
    );
    this.drops.unlogged = 0;
    this.drops.loggedAt = now;
  }

  /** Moves the cursor forward (never back: a batch acknowledged after a backlog drop moved past it). */
  private advance(seq: number): void {
    if (seq <= this.cursor) return;
    this.cursor = seq;
    this.save();
  }

  private save(): void {
    this.read('cursor', () => this.options.store.setCursor(this.options.sink.name, this.cursor));
  }

  private nextBackoff(): number {
    this.failures += 1;
    return backoffDelay(this.failures, this.options.backoff ?? DEFAULT_BACKOFF);
  }

  /** A database operation that must not stop delivery: a failure is logged and counted, and undefined. */
  private read<T>(operation: string, work: () => T): T | undefined {
    try {
      return work();
    } catch (error) {
      this.options.metrics.eventsStoreErrors.inc({ operation });
      this.options.logger.error({ err: error, sink: this.options.sink.name, operation }, 'events database operation failed');
      return undefined;
    }
  }

  private wait(ms: number | undefined, onNews: boolean): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise<void>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const done = () => {
        clearTimeout(timer);
        if (this.waiter === waiter) this.waiter = undefined;
        resolve();
      };
      const waiter: Waiter = { done, onNews };
      this.waiter = waiter;
      if (ms !== undefined) timer = setTimeout(done, ms);
    });
  }

  private settleIdle(): void {
    const idle = this.idle;
    this.idle = [];
    for (const resolve of idle) resolve();
  }
}
