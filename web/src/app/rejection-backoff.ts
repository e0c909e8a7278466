/**
 * When the gateway answers frames with errors several times in a row (unknown model, overloaded, a bad
 * picture), sending slows down instead of hammering it: 100 ms after the first error, doubling up to 2 s.
 * A detections answer means the gateway is fine again and resets it; `dropped` says nothing either way.
 * It publishes every change, the moment its hold runs out included, so the stream loop goes on by itself.
 */
import { Signal } from '../events/signal.ts';
import type { FrameOutcome } from '../paths/frame-outcome.ts';
import type { Clock, TimerHandle } from '../time/clock.ts';

export const REJECTION_DELAY_MIN_MS = 100;
export const REJECTION_DELAY_MAX_MS = 2000;

/** The pause before the next frame after `streak` errors in a row (streak >= 1). */
export function rejectionDelay(streak: number): number {
  return Math.min(REJECTION_DELAY_MAX_MS, REJECTION_DELAY_MIN_MS * 2 ** Math.min(5, streak - 1));
}

export class RejectionBackoff {
  /** The streak changed, or the hold ran out: the next frame may go now. */
  readonly changed = new Signal<void>();
  private count = 0;
  private last: { code: string; message: string } | undefined;
  private holdUntil = 0;
  private timer: TimerHandle | undefined;

  constructor(private readonly clock: Pick<Clock, 'now' | 'setTimeout' | 'clearTimeout'>) {}

  /** Frames answered with an error in a row. */
  get streak(): number {
    return this.count;
  }

  get lastRejection(): { code: string; message: string } | undefined {
    return this.last;
  }

  /** Counts a frame the gateway settled (only those: an error about a ping or a stale frame settles none). */
  track(outcome: FrameOutcome): void {
    if (outcome.kind === 'error') {
      this.count++;
      this.last = { code: outcome.reason, message: outcome.message ?? '' };
      const delay = rejectionDelay(this.count);
      this.holdUntil = this.clock.now() + delay;
      this.clock.clearTimeout(this.timer);
      this.timer = this.clock.setTimeout(this.release, delay);
      this.changed.emit();
    } else if (outcome.kind === 'ok' && (this.count > 0 || this.holdUntil > 0)) {
      this.count = 0;
      this.last = undefined;
      this.holdUntil = 0;
      this.clock.clearTimeout(this.timer);
      this.timer = undefined;
      this.changed.emit();
    }
  }

  /** How long the next frame must still wait, ms; 0 when it may go now. */
  waitMs(): number {
    return Math.max(0, this.holdUntil - this.clock.now());
  }

  /** The dashboard stops: no hold carries over to a restart (the streak stays shown). */
  stop(): void {
    this.holdUntil = 0;
    this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private readonly release = (): void => {
    // A timer may fire a little before the clock reaches its time: never announce a release still held.
    const left = this.waitMs();
    this.timer = left > 0 ? this.clock.setTimeout(this.release, left) : undefined;
    if (left <= 0) this.changed.emit();
  };
}
