/**
 * Runs a link engine in real time: a timer for the next delivery, re-armed as deliveries are taken. The
 * clock and timers are injected (`LinkTimers`): the real ones in Node and the browser alike, a manual one in
 * tests. Timers fire late, never early enough to matter: whatever is due by the time one fires goes out then.
 */

export interface LinkTimers {
  /** Milliseconds on a monotonic clock. */
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  /** Runs `callback` at the next turn of the event loop (Node's setImmediate); absent: setTimeout(0). */
  soon?(callback: () => void): void;
}

/** performance.now() and the global timers: the same in Node and in a browser. */
export const realTimers: LinkTimers = {
  now: () => performance.now(),
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as Parameters<typeof globalThis.clearTimeout>[0]),
  // Node's setImmediate when there is one (not in browsers, where setTimeout(0) is the finest step).
  soon: (globalThis as { setImmediate?: (callback: () => void) => unknown }).setImmediate
    ? (callback) => void (globalThis as unknown as { setImmediate: (callback: () => void) => unknown }).setImmediate(callback)
    : undefined,
};

/** What the pump drives: a link engine's delivery side. */
export interface DeliverySource<T> {
  nextDueAt(): number | undefined;
  takeDue(now: number): T[];
}

/**
 * How much before a lone delivery the timer is set, by default: timers fire up to ~2 ms after their time
 * (loop time is in whole ms, and a sleeping process waits for a CPU), and the rest is spent yielding to the
 * event loop: up to this much CPU per lone delivery, the price of a ping's round trip being right to ~0.1 ms.
 */
export const DEFAULT_SPIN_MS = 2;
/**
 * A pump that delivered this recently is carrying a flow: its deliveries are paced by the link's schedule,
 * and the last fraction of a millisecond is not waited out (that would keep a core busy for the whole flow).
 */
const BUSY_MS = 5;

export class DeliveryPump<T> {
  private timer: unknown;
  private armedFor = Number.POSITIVE_INFINITY;
  private lastDeliveryAt = Number.NEGATIVE_INFINITY;
  private stopped = false;

  constructor(
    private readonly source: DeliverySource<T>,
    /** Called once per item, in delivery order. */
    private readonly deliver: (item: T) => void,
    private readonly timers: LinkTimers = realTimers,
    /** Called after a batch was delivered (e.g. to resume a paused reader). */
    private readonly afterBatch?: () => void,
    /** Spin up to this long before a lone delivery ({@link DEFAULT_SPIN_MS}); 0: timers only (~1 ms late, no CPU spent). */
    private readonly spinMs = DEFAULT_SPIN_MS,
  ) {}

  /** Call after handing the engine something: delivers what is due now, or arms the timer if due sooner. */
  poke(): void {
    if (this.stopped) return;
    const next = this.source.nextDueAt();
    if (next === undefined || next >= this.armedFor) return;
    this.cancel();
    this.armFor(next);
  }

  /**
   * Timers fire up to ~2 ms after their time: for a lone delivery (a ping) the timer is set `spinMs` early
   * and the rest is waited out by yielding to the event loop, so it is neither early nor a tick late. Within
   * a flow ({@link BUSY_MS}), or with `spinMs` 0, a plain timer does; something due already goes out at once.
   */
  private armFor(next: number): void {
    const now = this.timers.now();
    const wait = next - now;
    this.armedFor = next;
    if (wait <= 0) return this.fire();
    const soon = this.spinMs > 0 && now - this.lastDeliveryAt > BUSY_MS ? this.timers.soon : undefined;
    if (!soon) {
      this.timer = this.timers.setTimeout(() => this.fire(), wait);
    } else if (wait > this.spinMs) {
      this.timer = this.timers.setTimeout(() => this.fire(), Math.max(1, Math.floor(wait - this.spinMs)));
    } else {
      const token = {};
      this.timer = token;
      soon(() => {
        if (this.timer === token) this.fire();
      });
    }
  }

  private fire(): void {
    this.timer = undefined;
    this.armedFor = Number.POSITIVE_INFINITY;
    if (this.stopped) return;
    const now = this.timers.now();
    const next = this.source.nextDueAt();
    if (next !== undefined && next > now) return this.armFor(next);
    const due = this.source.takeDue(now);
    if (due.length) this.lastDeliveryAt = now;
    for (const item of due) {
      if (this.stopped) return;
      this.deliver(item);
    }
    if (this.stopped) return;
    this.afterBatch?.();
    this.poke();
  }

  private cancel(): void {
    // A pending `soon` callback cannot be cancelled: it checks that it is still the current one.
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
  }

  stop(): void {
    this.stopped = true;
    this.cancel();
  }
}
