import type { Clock, TimerHandle } from '../../src/time/clock.ts';

interface Pending {
  id: number;
  at: number;
  callback: () => void;
}

/**
 * A Clock for tests: time moves only when told. advance() fires timers in due order at their due time;
 * jump() moves time without firing anything, like a page whose timers were throttled in the background.
 */
export class FakeClock implements Clock {
  private time: number;
  private nextId = 1;
  private pending: Pending[] = [];

  constructor(start = 0) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimeout(callback: () => void, ms: number): TimerHandle {
    const id = this.nextId++;
    this.pending.push({ id, at: this.time + Math.max(0, ms), callback });
    return id;
  }

  clearTimeout(handle: TimerHandle | undefined): void {
    this.pending = this.pending.filter((timer) => timer.id !== handle);
  }

  /** Timers still to fire. */
  get timerCount(): number {
    return this.pending.length;
  }

  /** When the earliest pending timer is due, if any. */
  get nextTimerAt(): number | undefined {
    return this.pending.reduce<number | undefined>(
      (earliest, timer) => (earliest === undefined || timer.at < earliest ? timer.at : earliest),
      undefined,
    );
  }

  /** Moves time forward by `ms`, firing every timer that falls due on the way (including ones set meanwhile). */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      const due = this.pending.filter((timer) => timer.at <= end).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.pending = this.pending.filter((timer) => timer !== due);
      this.time = Math.max(this.time, due.at);
      due.callback();
    }
    this.time = end;
  }

  /** Moves time forward without firing anything: the timers fire late, on the next advance(). */
  jump(ms: number): void {
    this.time += ms;
  }
}
