/**
 * How long a frame holds one of the gateway's places (decode to reply), as an exponentially weighted mean
 * over the frames just processed: what the scheduler predicts a new frame's wait from. Frame sizes, models
 * and load change from minute to minute, so recent frames count most; an outlier moves it by 1/8 only.
 */
const WEIGHT = 1 / 8;

export class ServiceTime {
  private mean: number | undefined;

  /** ms; 0 until a frame has finished (an idle gateway predicts no wait). */
  get meanMs(): number {
    return this.mean ?? 0;
  }

  record(ms: number): void {
    if (!(ms >= 0)) return;
    this.mean = this.mean === undefined ? ms : this.mean + WEIGHT * (ms - this.mean);
  }
}
