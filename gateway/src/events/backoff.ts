/**
 * How long a sink waits before it tries again after a failed delivery: doubling from `initialMs` up to `maxMs`,
 * each wait shortened by a random part of up to `jitter` of it, so that gateways that lost the same broker or
 * webhook at the same moment do not all come back at the same moment.
 */
export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  /** 0..1: the share of each wait that is random. */
  jitter: number;
}

/** 0.5 s, 1 s, 2 s ... up to 30 s, each up to a fifth shorter. */
export const DEFAULT_BACKOFF: Readonly<BackoffOptions> = Object.freeze({ initialMs: 500, maxMs: 30_000, jitter: 0.2 });

/** The wait before try `attempt + 1`, after `attempt` failures in a row (1, 2, ...). */
export function backoffDelay(attempt: number, options: BackoffOptions = DEFAULT_BACKOFF, random: () => number = Math.random): number {
  const doublings = Math.min(Math.max(0, attempt - 1), 40);
  const full = Math.min(options.maxMs, options.initialMs * 2 ** doublings);
  return Math.round(full * (1 - options.jitter * random()));
}
