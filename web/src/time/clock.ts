/**
 * Time and one-shot timers as one injected dependency, so the dashboard's units run on a fake clock in
 * tests and a throttled page (timers firing late) can be replayed exactly.
 */

/** Whatever setTimeout returned; only ever handed back to clearTimeout. */
export type TimerHandle = unknown;

export interface Clock {
  /** Monotonic milliseconds (performance.now() in the page). */
  now(): number;
  setTimeout(callback: () => void, ms: number): TimerHandle;
  /** Accepts undefined, like the global, so "no timer pending" needs no special case. */
  clearTimeout(handle: TimerHandle | undefined): void;
}

export const browserClock: Clock = {
  now: () => performance.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout> | undefined),
};
