/**
 * How far the drawn boxes are ahead of the latest answer: for every video frame drawn, its capture time
 * minus the capture time of the frame the latest answer is about. Shown as the median over the last
 * second, so it follows the latency without jumping with every frame.
 */
import { percentile } from '@sightline/shared/stats';

export const LEAD_WINDOW_MS = 1000;

export class LeadWindow {
  private entries: { at: number; leadMs: number }[] = [];

  constructor(private readonly windowMs = LEAD_WINDOW_MS) {}

  /** One drawn frame, `leadMs` ahead, drawn at `at` (page clock). */
  add(at: number, leadMs: number): void {
    this.entries.push({ at, leadMs });
    this.prune(at);
  }

  /** The median lead of the frames drawn in the last window before `now`; undefined when none was. */
  median(now: number): number | undefined {
    this.prune(now);
    if (this.entries.length === 0) return undefined;
    return percentile(
      this.entries.map((entry) => entry.leadMs).sort((a, b) => a - b),
      50,
    );
  }

  clear(): void {
    this.entries = [];
  }

  private prune(now: number): void {
    const from = now - this.windowMs;
    let drop = 0;
    while (drop < this.entries.length && this.entries[drop]!.at < from) drop++;
    if (drop > 0) this.entries.splice(0, drop);
  }
}
