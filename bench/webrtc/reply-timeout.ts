/**
 * How long the data channel's sender waits for a frame's reply before it stops holding a place in the window
 * for it: TCP's retransmission timeout (RFC 6298: a smoothed round trip plus four times its variation), from
 * the replies seen so far, between a floor and the hard timeout. On an unordered channel with no
 * retransmissions a lost frame is never answered, and only a timeout tells the sender so: a fixed long one
 * would stall a stop-and-wait sender on every loss; this one follows the link and the server. A reply that
 * comes after it still counts (until the hard timeout, see SendLog): only the sending goes on. Pure.
 */

/** Linux's TCP_RTO_MIN: below this a loaded machine's scheduling alone would call frames lost. */
export const MIN_REPLY_TIMEOUT_MS = 200;

export class ReplyTimeout {
  private srtt: number | undefined;
  private rttvar = 0;

  constructor(
    /** The hard timeout: the wait before any reply was seen, and the most ever waited. */
    private readonly maxMs: number,
    private readonly minMs = Math.min(MIN_REPLY_TIMEOUT_MS, maxMs),
  ) {}

  /** A reply came `latencyMs` after its frame went out. */
  observe(latencyMs: number): void {
    if (!(latencyMs >= 0)) return;
    if (this.srtt === undefined) {
      this.srtt = latencyMs;
      this.rttvar = latencyMs / 2;
      return;
    }
    this.rttvar = 0.75 * this.rttvar + 0.25 * Math.abs(this.srtt - latencyMs);
    this.srtt = 0.875 * this.srtt + 0.125 * latencyMs;
  }

  get ms(): number {
    if (this.srtt === undefined) return this.maxMs;
    return Math.min(this.maxMs, Math.max(this.minMs, this.srtt + 4 * this.rttvar));
  }
}
