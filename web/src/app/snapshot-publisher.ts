/**
 * Hands React a new snapshot (useSyncExternalStore) without rebuilding it for every answer: discrete
 * events (a status change, an error, a click) publish at once; the stream of answers and pongs at most
 * every SNAPSHOT_INTERVAL_MS, and never just before a ping or while its pong is awaited, because a rebuild
 * (React + recharts render) on the main thread would delay the ping's send or the pong's receipt and
 * inflate the ping RTT it is about to show (ping-schedule.ts). It rebuilds when what it watches publishes
 * a change (watch()), never because a caller remembered to ask.
 */
import type { Subscribable } from '../events/signal.ts';
import type { Clock, TimerHandle } from '../time/clock.ts';
import { publishTime, type PingWindow } from './ping-schedule.ts';

export const SNAPSHOT_INTERVAL_MS = 250;

export interface SnapshotPublisherOptions<T> {
  build: () => T;
  clock: Clock;
  /** The ping window now: read at every scheduling decision, since it moves every second. */
  pingWindow: () => PingWindow;
  /** The ping window moved (next ping scheduled, pong arrived): a pending rebuild is re-timed. */
  pingWindowChanged?: Subscribable<unknown>;
}

/** Whether a change is shown at once (a discrete event) or with the stream's throttled rebuilds. */
export type Urgency<T> = boolean | ((change: T) => boolean);

export class SnapshotPublisher<T> {
  private readonly listeners = new Set<() => void>();
  private snapshot: T;
  /** The pending rebuild; undefined when none is pending (that is what invalidate() checks). */
  private timer: TimerHandle | undefined;
  private urgent = false;
  private lastPublish = 0;

  constructor(private readonly options: SnapshotPublisherOptions<T>) {
    this.snapshot = options.build();
    options.pingWindowChanged?.subscribe(() => this.reschedule());
  }

  /** Rebuilds whenever `changes` publishes: at once when `urgent` says so for that change, else throttled. */
  watch<C>(changes: Subscribable<C>, urgent: Urgency<C>): () => void {
    return changes.subscribe((change) => this.invalidate(typeof urgent === 'function' ? urgent(change) : urgent));
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getSnapshot = (): T => this.snapshot;

  /** Something shown changed: rebuild at once when `urgent`, else throttled and out of the ping window. */
  invalidate(urgent = false): void {
    const { clock } = this.options;
    if (urgent) {
      clock.clearTimeout(this.timer);
      this.urgent = true;
      this.timer = clock.setTimeout(this.publish, 0);
      return;
    }
    if (this.timer !== undefined) return;
    this.schedule();
  }

  /** Re-times a pending non-urgent rebuild after the ping window changed. */
  reschedule(): void {
    if (this.timer === undefined || this.urgent) return;
    this.options.clock.clearTimeout(this.timer);
    this.schedule();
  }

  /** Drops the pending rebuild. */
  stop(): void {
    this.options.clock.clearTimeout(this.timer);
    // A kept handle would make invalidate() believe a rebuild is pending after a restart (StrictMode remount).
    this.timer = undefined;
    this.urgent = false;
  }

  private schedule(): void {
    const { clock } = this.options;
    const now = clock.now();
    const at = publishTime(Math.max(now, this.lastPublish + SNAPSHOT_INTERVAL_MS), this.options.pingWindow());
    this.timer = clock.setTimeout(this.publish, Math.max(0, at - now));
  }

  private readonly publish = (): void => {
    const { clock } = this.options;
    this.timer = undefined;
    const urgent = this.urgent;
    this.urgent = false;
    if (!urgent) {
      // The window may have moved since this was scheduled (a ping was scheduled, a pong is late).
      const now = clock.now();
      if (publishTime(now, this.options.pingWindow()) > now + 1) {
        this.schedule();
        return;
      }
    }
    this.lastPublish = clock.now();
    this.snapshot = this.options.build();
    for (const listener of this.listeners) listener();
  };
}
