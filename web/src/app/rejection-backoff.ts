/**
 * When the gateway answers frames with errors several times in a row (unknown model, overloaded, a bad
 * picture), sending slows down instead of hammering it: 100 ms after the first error, doubling up to 2 s.
 * A detections answer means the gateway is fine again and resets it; `dropped` says nothing either way.
 */
import type { FrameAnswer } from '../transport/frame-sender.ts';

export const REJECTION_DELAY_MIN_MS = 100;
export const REJECTION_DELAY_MAX_MS = 2000;

/** The pause before the next frame after `streak` errors in a row (streak >= 1). */
export function rejectionDelay(streak: number): number {
  return Math.min(REJECTION_DELAY_MAX_MS, REJECTION_DELAY_MIN_MS * 2 ** Math.min(5, streak - 1));
}

export class RejectionBackoff {
  private count = 0;
  private last: { code: string; message: string } | undefined;
  private holdUntil = 0;

  constructor(private readonly now: () => number) {}

  /** Frames answered with an error in a row. */
  get streak(): number {
    return this.count;
  }

  get lastRejection(): { code: string; message: string } | undefined {
    return this.last;
  }

  /** Counts the answer that settled a frame (only those: an error about a ping or a stale frame says nothing). */
  track(answer: FrameAnswer): void {
    if (answer.type === 'error') {
      this.count++;
      this.last = { code: answer.code, message: answer.message };
      this.holdUntil = this.now() + rejectionDelay(this.count);
    } else if (answer.type === 'detections') {
      this.count = 0;
      this.last = undefined;
      this.holdUntil = 0;
    }
  }

  /** How long the next frame must still wait, ms; 0 when it may go now. */
  waitMs(): number {
    return Math.max(0, this.holdUntil - this.now());
  }
}
