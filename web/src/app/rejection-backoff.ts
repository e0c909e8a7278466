/**
 * When the gateway refuses frames, sending slows down instead of hammering it. A refusal that says when
 * the gateway will have room (`retryAfterMs`, protocol 2: `dropped` / `overloaded` and `error` /
 * `overloaded`) holds the next frame exactly that long, and nothing shortens that hold. Errors that say
 * nothing (unknown model, a bad picture, an older gateway) back off 100 ms after the first, doubling up to
 * 2 s; a detections answer means the gateway is fine again and ends that backoff; a `dropped` without a
 * time says nothing either way. It publishes every change, the moment its hold runs out included, so the
 * stream loop goes on by itself.
 */
import { Signal } from '../events/signal.ts';
import type { FrameOutcome } from '../frame-routes/frame-outcome.ts';
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
  /** Our own backoff after errors in a row: ended by detections. */
  private backoffUntil = 0;
  /** The gateway's "not before" (retryAfterMs): only time ends it. */
  private retryUntil = 0;
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
      if (outcome.retryAfterMs !== undefined) this.holdFor(outcome.retryAfterMs);
      else this.backoffUntil = Math.max(this.backoffUntil, this.clock.now() + rejectionDelay(this.count));
      this.armRelease();
      this.changed.emit();
    } else if (outcome.kind === 'dropped' && outcome.retryAfterMs !== undefined) {
      this.holdFor(outcome.retryAfterMs);
      this.armRelease();
      this.changed.emit();
    } else if (outcome.kind === 'ok' && (this.count > 0 || this.backoffUntil > 0)) {
      this.count = 0;
      this.last = undefined;
      this.backoffUntil = 0;
      this.armRelease();
      this.changed.emit();
    }
  }

  /** How long the next frame must still wait, ms; 0 when it may go now. */
  waitMs(): number {
    return Math.max(0, Math.max(this.backoffUntil, this.retryUntil) - this.clock.now());
  }

  /** The dashboard stops: no hold carries over to a restart (the streak stays shown). */
  stop(): void {
    this.backoffUntil = 0;
    this.retryUntil = 0;
    this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** The gateway asked for `ms` before the next frame: never sooner than any earlier refusal asked. */
  private holdFor(ms: number): void {
    this.retryUntil = Math.max(this.retryUntil, this.clock.now() + ms);
  }

  /** One timer, for the end of whichever hold ends last. */
  private armRelease(): void {
    this.clock.clearTimeout(this.timer);
    const left = this.waitMs();
    this.timer = left > 0 ? this.clock.setTimeout(this.release, left) : undefined;
  }

  private readonly release = (): void => {
    // A timer may fire a little before the clock reaches its time: never announce a release still held.
    const left = this.waitMs();
    this.timer = left > 0 ? this.clock.setTimeout(this.release, left) : undefined;
    if (left <= 0) this.changed.emit();
  };
}
