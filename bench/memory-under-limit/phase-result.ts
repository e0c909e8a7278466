/**
 * What one phase of memory-under-limit.sh sent and what came back, in one shape whatever drove it (this
 * folder's loads, or the benchmark's fuzz and soak reports, read by summary.ts).
 */
import { writeFileSync } from 'node:fs';

export interface PhaseResult {
  phase: string;
  /** Frames or messages sent (a frame resent after `overloaded` counts once). */
  sent: number;
  /** Sent and never answered: no reply and no close within the timeout. Must be 0. */
  unanswered: number;
  /** What the answers were: `detections`, `error too_large`, `dropped overloaded`, `close 1009`, `HTTP 413`... */
  outcomes: Record<string, number>;
  /** Answers that break an expectation (a bomb detected, an internal error, a connection closed under a frame). */
  problems: string[];
  /** Figures worth a line in the report that are not failures (refusals retried, largest message). */
  notes: string[];
}

export function countInto(outcomes: Record<string, number>, key: string, n = 1): void {
  outcomes[key] = (outcomes[key] ?? 0) + n;
}

export function writePhaseResult(path: string, result: PhaseResult): void {
  writeFileSync(path, `${JSON.stringify(result, null, 2)}\n`);
}
