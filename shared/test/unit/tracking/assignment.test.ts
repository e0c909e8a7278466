import { munkres } from 'munkres';
import { describe, expect, it } from 'vitest';
import { assignByScore, linearSumAssignment } from '../../../src/tracking/assignment.ts';

/** A small seeded generator so failures replay. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function matrix(rows: number, cols: number, next: () => number, scale = 100): Float64Array {
  return Float64Array.from({ length: rows * cols }, () => Math.round(next() * scale));
}

function total(cost: ArrayLike<number>, cols: number, rowToCol: ArrayLike<number>): number {
  let sum = 0;
  for (let r = 0; r < rowToCol.length; r++) if (rowToCol[r]! >= 0) sum += cost[r * cols + rowToCol[r]!]!;
  return sum;
}

/** Best total of `pick` over every way to give each row of the smaller side a distinct partner (or none). */
function bruteForce(rows: number, cols: number, value: (r: number, c: number) => number | undefined, full: boolean): number {
  let best = full ? Infinity : 0;
  const used = new Uint8Array(cols);
  const visit = (r: number, sum: number, assigned: number) => {
    if (r === rows) {
      if (!full || assigned === Math.min(rows, cols)) best = full ? Math.min(best, sum) : Math.max(best, sum);
      return;
    }
    if (!full || rows > cols) visit(r + 1, sum, assigned);
    for (let c = 0; c < cols; c++) {
      const v = value(r, c);
      if (used[c] || v === undefined) continue;
      used[c] = 1;
      visit(r + 1, sum + v, assigned + 1);
      used[c] = 0;
    }
  };
  visit(0, 0, 0);
  return best;
}

describe('linearSumAssignment', () => {
  it('solves a known 3x3 problem', () => {
    const cost = [4, 1, 3, 2, 0, 5, 3, 2, 2];
    expect(Array.from(linearSumAssignment(cost, 3, 3))).toEqual([1, 0, 2]);
  });

  it('gives every row of a wide matrix, and every column of a tall one, a distinct partner', () => {
    const wide = linearSumAssignment([5, 1, 9, 2, 8, 0], 2, 3);
    expect(Array.from(wide)).toEqual([1, 2]);
    const tall = linearSumAssignment([5, 2, 1, 8, 9, 0], 3, 2);
    expect(Array.from(tall)).toEqual([-1, 0, 1]);
  });

  it('matches the munkres package on 300 random matrices, square, wide and tall', () => {
    const next = random(7);
    for (let k = 0; k < 300; k++) {
      const rows = 1 + Math.floor(next() * 12);
      const cols = 1 + Math.floor(next() * 12);
      const cost = matrix(rows, cols, next);
      const ours = total(cost, cols, linearSumAssignment(cost, rows, cols));
      const rowsOf = Array.from({ length: rows }, (_, r) => Array.from(cost.subarray(r * cols, (r + 1) * cols)));
      const theirs = munkres(rowsOf).reduce((sum, [r, c]) => sum + rowsOf[r]![c]!, 0);
      expect(ours, `case ${k}: ${rows}x${cols}`).toBe(theirs);
    }
  });

  it('matches brute force on small matrices with ties and negative costs', () => {
    const next = random(11);
    for (let k = 0; k < 200; k++) {
      const rows = 1 + Math.floor(next() * 5);
      const cols = 1 + Math.floor(next() * 5);
      const cost = Float64Array.from({ length: rows * cols }, () => Math.floor(next() * 5) - 2);
      const solved = linearSumAssignment(cost, rows, cols);
      expect(new Set(Array.from(solved).filter((c) => c >= 0)).size).toBe(Math.min(rows, cols));
      expect(total(cost, cols, solved)).toBe(bruteForce(rows, cols, (r, c) => cost[r * cols + c], true));
    }
  });

  it('handles empty matrices and refuses infinite costs', () => {
    expect(linearSumAssignment([], 0, 4)).toHaveLength(0);
    expect(Array.from(linearSumAssignment([], 3, 0))).toEqual([-1, -1, -1]);
    expect(() => linearSumAssignment([Infinity], 1, 1)).toThrow(/finite/);
  });
});

describe('assignByScore', () => {
  it('pairs only at or above the minimum score, and leaves the rest unmatched', () => {
    // track 0 overlaps detection 0 well; track 1 overlaps nothing enough; detection 1 is new.
    const score = [0.8, 0.1, 0.15, 0.05];
    expect(assignByScore(score, 2, 2, 0.3)).toEqual({ matches: [[0, 0]], unmatchedRows: [1], unmatchedCols: [1] });
  });

  it('maximises the total score rather than the number of pairs', () => {
    // A-X 0.9 alone beats A-Y 0.35 + B-X 0.35.
    const score = [0.9, 0.35, 0.35, 0];
    expect(assignByScore(score, 2, 2, 0.3).matches).toEqual([[0, 0]]);
  });

  it('resolves a contested detection optimally, not greedily', () => {
    // Greedy would give detection 0 to track 0 (0.9) and leave track 1 with nothing.
    const score = [0.9, 0.8, 0.85, 0];
    expect(assignByScore(score, 2, 2, 0.3).matches).toEqual([
      [0, 1],
      [1, 0],
    ]);
  });

  it('finds the best total on 300 random sparse problems (brute force)', () => {
    const next = random(3);
    for (let k = 0; k < 300; k++) {
      const rows = Math.floor(next() * 6);
      const cols = Math.floor(next() * 6);
      const score = Float64Array.from({ length: rows * cols }, () => (next() < 0.4 ? Math.round(next() * 100) / 100 : 0));
      const minScore = 0.3;
      const { matches, unmatchedRows, unmatchedCols } = assignByScore(score, rows, cols, minScore);
      const sum = matches.reduce((s, [r, c]) => s + score[r * cols + c]!, 0);
      const best = bruteForce(rows, cols, (r, c) => (score[r * cols + c]! >= minScore ? score[r * cols + c]! : undefined), false);
      expect(sum, `case ${k}`).toBeCloseTo(best, 9);
      for (const [r, c] of matches) expect(score[r * cols + c]).toBeGreaterThanOrEqual(minScore);
      expect(matches.length + unmatchedRows.length).toBe(rows);
      expect(matches.length + unmatchedCols.length).toBe(cols);
    }
  });
});
