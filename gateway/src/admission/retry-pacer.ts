/**
 * When to tell a refused client to send again (`retryAfterMs`): no earlier than the backlog ahead of it
 * will have cleared, and spread out, one slot per frame the gateway completes, so the clients refused in
 * one burst do not all come back in the same millisecond and meet a full queue again. Slots are handed
 * out at most MAX_RETRY_AFTER_MS ahead: past that the round starts over (a client that ignores its slot
 * would otherwise push everybody's further out without end).
 */
export const MAX_RETRY_AFTER_MS = 1000;

/** A wait as `retryAfterMs` says it: whole ms, at least 1, at most MAX_RETRY_AFTER_MS. */
export function retryAfterFrom(waitMs: number): number {
  return Math.max(1, Math.ceil(Math.min(MAX_RETRY_AFTER_MS, waitMs)));
}

export class RetryPacer {
  /** The latest slot handed out (ms on the scheduler's clock). */
  private lastSlot = -Infinity;

  /**
   * @param now the scheduler's clock
   * @param clearsInMs how long until the frame would be accepted if it came back (its predicted wait beyond the budget)
   * @param slotMs the time between two frames completing, gateway-wide
   */
  next(now: number, clearsInMs: number, slotMs: number): number {
    const earliest = now + Math.min(MAX_RETRY_AFTER_MS, Math.max(0, clearsInMs));
    let slot = Math.max(earliest, this.lastSlot + Math.max(0, slotMs));
    if (slot - now > MAX_RETRY_AFTER_MS) slot = earliest;
    this.lastSlot = slot;
    return retryAfterFrom(slot - now);
  }
}
