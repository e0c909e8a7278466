/**
 * Scoring a counter against the true crossings, per the issue: the count error is the sum over lines of
 * |in - in_gt| + |out - out_gt|; a reported crossing is explained when a true crossing of the same line and
 * direction lies within `windowFrames` frames of it, matched one to one (each true crossing explains one report).
 */
import type { Crossing } from './truth.ts';

export const MATCH_WINDOW_FRAMES = 5;

export interface CrossingScore {
  /** True crossings. */
  truth: number;
  /** Reported crossings. */
  reported: number;
  /** Sum over lines of |in - in_gt| + |out - out_gt|. */
  countError: number;
  /** Reported crossings that no true crossing explains. */
  unexplained: number;
  /** True crossings that no report matched. */
  missed: number;
}

export function scoreCrossings(
  reported: readonly Crossing[],
  truth: readonly Crossing[],
  windowFrames = MATCH_WINDOW_FRAMES,
): CrossingScore {
  const groups = new Map<string, { reported: number[]; truth: number[] }>();
  const group = (c: Crossing) => {
    const key = `${c.line}\u0000${c.direction}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { reported: [], truth: [] }));
    return g;
  };
  for (const c of reported) group(c).reported.push(c.frame);
  for (const c of truth) group(c).truth.push(c.frame);

  let countError = 0;
  let matched = 0;
  for (const g of groups.values()) {
    countError += Math.abs(g.reported.length - g.truth.length);
    matched += matchWithin(g.reported, g.truth, windowFrames);
  }
  return {
    truth: truth.length,
    reported: reported.length,
    countError,
    unexplained: reported.length - matched,
    missed: truth.length - matched,
  };
}

/**
 * The largest one-to-one matching of reports to true crossings at most `window` frames apart: reports in time
 * order, each taking the earliest true crossing still free within its window (optimal for equal windows on a line).
 */
export function matchWithin(reported: readonly number[], truth: readonly number[], window: number): number {
  const r = [...reported].sort((a, b) => a - b);
  const t = [...truth].sort((a, b) => a - b);
  let matched = 0;
  let next = 0;
  for (const frame of r) {
    while (next < t.length && t[next]! < frame - window) next++;
    if (next < t.length && t[next]! <= frame + window) {
      matched++;
      next++;
    }
  }
  return matched;
}

/** Adds scores up (over lines, sequences, seeds). */
export function sumScores(scores: Iterable<CrossingScore>): CrossingScore {
  const total: CrossingScore = { truth: 0, reported: 0, countError: 0, unexplained: 0, missed: 0 };
  for (const s of scores) for (const k of Object.keys(total) as Array<keyof CrossingScore>) total[k] += s[k];
  return total;
}
