/**
 * When a frame on the unordered, unretransmitted data channel counts as lost: its answer is overdue by more
 * than the answers have been taking. A lost frame (or a lost answer) never arrives, so stop-and-wait would
 * otherwise hold the stream for the whole answer timeout; a late answer after the frame was given up is
 * ignored like any answer to a frame no longer waited for. LOSS_FACTOR x the p95 of the recent answers' full
 * latency, never below MIN_LOSS_TIMEOUT_MS (a slow model is not a lossy link) nor above the answer timeout.
 */
import { ANSWER_TIMEOUT_MS } from '../transport/frame-sender.ts';

export const MIN_LOSS_TIMEOUT_MS = 1000;
export const LOSS_FACTOR = 3;
/** Answers the p95 is taken over. */
export const LOSS_WINDOW = 30;

export class LossTimeout {
  private recent: number[] = [];

  /** A frame was answered after `fullMs`. */
  answered(fullMs: number): void {
    if (!Number.isFinite(fullMs) || fullMs < 0) return;
    this.recent.push(fullMs);
    if (this.recent.length > LOSS_WINDOW) this.recent.shift();
  }

  /** A new connection: its latencies are its own. */
  reset(): void {
    this.recent = [];
  }

  /** How long an answer may take before its frame is lost, ms. */
  get timeoutMs(): number {
    if (this.recent.length === 0) return ANSWER_TIMEOUT_MS;
    const sorted = [...this.recent].sort((a, b) => a - b);
    const p95 = sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)]!;
    return Math.min(ANSWER_TIMEOUT_MS, Math.max(MIN_LOSS_TIMEOUT_MS, Math.round(LOSS_FACTOR * p95)));
  }
}
