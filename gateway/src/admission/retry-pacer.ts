/**
 * When to tell a refused client to send again (`retryAfterMs`): no earlier than the backlog ahead of it
 * will have cleared, and spread out, one retry time per place interval (how often the gateway completes a
 * frame), so the clients refused in one burst do not all come back in the same millisecond and meet a full
 * queue again. Retry times are handed out at most MAX_RETRY_AFTER_MS ahead: past that the round starts over (a
 * client that ignores its retry time would otherwise push everybody's further out without end).
 */
export const MAX_RETRY_AFTER_MS = 1000;

/** A wait as `retryAfterMs` says it: whole ms, at least 1, at most MAX_RETRY_AFTER_MS. */
export function retryAfterFrom(waitMs: number): number {
  return Math.max(1, Math.ceil(Math.min(MAX_RETRY_AFTER_MS, waitMs)));
}

export class RetryPacer {
  /** The latest retry time handed out (ms on the scheduler's clock). */
  private lastRetryAt = -Infinity;

  /**
   * @param now the scheduler's clock
   * @param clearsInMs how long until the frame would be accepted if it came back (its predicted wait beyond the budget)
   * @param intervalMs the time between two frames completing, gateway-wide (the place interval)
   */
  next(now: number, clearsInMs: number, intervalMs: number): number {
    const earliest = now + Math.min(MAX_RETRY_AFTER_MS, Math.max(0, clearsInMs));
    let retryAt = Math.max(earliest, this.lastRetryAt + Math.max(0, intervalMs));
    if (retryAt - now > MAX_RETRY_AFTER_MS) retryAt = earliest;
    this.lastRetryAt = retryAt;
    return retryAfterFrom(retryAt - now);
  }
}
