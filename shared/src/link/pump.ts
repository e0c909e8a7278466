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
}

/** performance.now() and the global timers: the same in Node and in a browser. */
export const realTimers: LinkTimers = {
  now: () => performance.now(),
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as Parameters<typeof globalThis.clearTimeout>[0]),
};

/** What the pump drives: a link engine's delivery side. */
export interface DeliverySource<T> {
  nextDueAt(): number | undefined;
  takeDue(now: number): T[];
}

export class DeliveryPump<T> {
  private timer: unknown;
  private armedFor = Number.POSITIVE_INFINITY;
  private stopped = false;

  constructor(
    private readonly source: DeliverySource<T>,
    /** Called once per item, in delivery order. */
    private readonly deliver: (item: T) => void,
    private readonly timers: LinkTimers = realTimers,
    /** Called after a batch was delivered (e.g. to resume a paused reader). */
    private readonly afterBatch?: () => void,
  ) {}

  /** Call after handing the engine something: arms the timer if it is now due sooner. */
  poke(): void {
    if (this.stopped) return;
    const next = this.source.nextDueAt();
    if (next === undefined || next >= this.armedFor) return;
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.armedFor = next;
    this.timer = this.timers.setTimeout(() => this.fire(), Math.max(0, Math.ceil(next - this.timers.now())));
  }

  private fire(): void {
    this.timer = undefined;
    this.armedFor = Number.POSITIVE_INFINITY;
    if (this.stopped) return;
    const due = this.source.takeDue(this.timers.now());
    for (const item of due) {
      if (this.stopped) return;
      this.deliver(item);
    }
    if (this.stopped) return;
    this.afterBatch?.();
    this.poke();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
  }
}
