/**
 * The schedule of an open-loop client: frame i goes out at start + i / rate, whatever happened to the frames
 * before it, as a camera produces frames. Latency is measured from that scheduled time, not from the moment
 * the client managed to send: a client that waited for a stalled gateway (or fell behind itself) would
 * otherwise leave the stall out of its figures ("coordinated omission").
 */

/** The clock a schedule is kept by; tests pass a fake one that moves only when told. */
export interface PacingClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const realClock: PacingClock = {
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** When frame `index` (0-based) of a client that started at `start` is due, in the same clock as `start` (ms). */
export function scheduledAt(start: number, index: number, rateFps: number): number {
  return start + (index * 1000) / rateFps;
}

/** How long to wait before sending a frame due at `due`; 0 when already late (it goes out at once). */
export function delayUntil(due: number, now: number): number {
  return Math.max(0, due - now);
}

/**
 * The `--stagger` that spreads `clients` open-loop cameras evenly over one frame interval at `rateFps`, as
 * independent cameras are (started together they would send in lockstep).
 */
export function spreadStaggerMs(rateFps: number, clients: number): number {
  return 1000 / rateFps / clients;
}

/** Frames a client sends in `durationMs` at `rateFps`: every frame scheduled before the end. */
export function framesInDuration(durationMs: number, rateFps: number): number {
  return Math.max(0, Math.ceil((durationMs * rateFps) / 1000 - 1e-9));
}

/**
 * Latency of an answer from its frame's scheduled send time, and how late the frame actually went out (the
 * client's own lag, reported apart so a busy client machine is not mistaken for a slow gateway).
 */
export function pacedTiming(due: number, sentAt: number, answeredAt: number): { latencyMs: number; sendLagMs: number } {
  return { latencyMs: answeredAt - due, sendLagMs: Math.max(0, sentAt - due) };
}

/**
 * Keeps one connection's sends under the gateway's message-rate limit (its `hello` says it): each send is
 * spaced at least 1 / (90% of the limit) after the previous one, so pipelined lanes whose frames are dropped
 * at once (answered in a millisecond) do not spin into `rate_limited` refusals and a 1008 close. Pings count
 * against the same limit; the 10% margin leaves room for them.
 */
export class RateCap {
  private nextAt = Number.NEGATIVE_INFINITY;
  private readonly spacingMs: number;

  constructor(messagesPerSecond: number | undefined) {
    this.spacingMs = messagesPerSecond && messagesPerSecond > 0 ? 1000 / (0.9 * messagesPerSecond) : 0;
  }

  /** How long to wait before the next send at `now` (ms), and claims that slot. */
  claim(now: number): number {
    const at = Math.max(now, this.nextAt);
    this.nextAt = at + this.spacingMs;
    return at - now;
  }
}
