import type { LinkTimers } from '@sightline/shared/link';

/** A clock that moves only when the test says: timers fire in time order as it advances. */
export class ManualClock implements LinkTimers {
  private time = 0;
  private timers: Array<{ at: number; seq: number; callback: () => void }> = [];
  private seq = 0;

  now(): number {
    return this.time;
  }

  setTimeout(callback: () => void, ms: number): unknown {
    const timer = { at: this.time + Math.max(0, ms), seq: this.seq++, callback };
    this.timers.push(timer);
    return timer;
  }

  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((t) => t !== handle);
  }

  /** Runs every timer due up to `t`, in order (timers they set included), and leaves the clock at `t`. */
  advanceTo(t: number): void {
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.timers[0];
      if (!next || next.at > t) break;
      this.timers.shift();
      this.time = Math.max(this.time, next.at);
      next.callback();
    }
    this.time = Math.max(this.time, t);
  }

  get pending(): number {
    return this.timers.length;
  }
}
