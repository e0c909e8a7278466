/** Reconnect delays: exponential growth with jitter, so many dashboards don't reconnect in lockstep. */

export interface BackoffOptions {
  /** Delay before the first retry, ms. */
  baseMs: number;
  /** Upper bound of the un-jittered delay, ms. */
  maxMs: number;
  /** Growth per failed attempt. */
  factor: number;
  /** 0..1: share of the delay that is randomised ("equal jitter" at 0.5). */
  jitter: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 500, maxMs: 15_000, factor: 2, jitter: 0.5 };

/**
 * Delay before retry number `attempt` (0 for the first retry). With jitter j the delay is uniformly drawn
 * from [(1 - j) * d, d] where d = min(maxMs, baseMs * factor^attempt).
 */
export function backoffDelay(attempt: number, options: BackoffOptions = DEFAULT_BACKOFF, random: () => number = Math.random): number {
  const ceiling = Math.min(options.maxMs, options.baseMs * options.factor ** Math.max(0, attempt));
  const jitter = Math.min(1, Math.max(0, options.jitter));
  return Math.round(ceiling * (1 - jitter + jitter * random()));
}
