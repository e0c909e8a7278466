/**
 * Messages per second one connection may send. Within the rate (and a one-second burst) everything
 * passes; past it each message is answered `rate_limited`, and a client that goes on until a second's
 * worth of messages was refused is closed. Refusals are forgiven over ten seconds, so a short spike costs
 * a few refused frames, never the connection, while a client sending at twice the rate is closed after
 * about a second.
 */
export type RateDecision = 'ok' | 'limited' | 'close';

export class MessageRateLimiter {
  private tokens: number;
  private excess = 0;
  private last: number;

  constructor(
    private readonly perSecond: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tokens = perSecond;
    this.last = now();
  }

  take(): RateDecision {
    const now = this.now();
    const refill = ((now - this.last) / 1000) * this.perSecond;
    this.last = now;
    this.tokens = Math.min(this.perSecond, this.tokens + refill);
    this.excess = Math.max(0, this.excess - refill / 10);
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 'ok';
    }
    this.excess += 1;
    return this.excess > this.perSecond ? 'close' : 'limited';
  }
}
