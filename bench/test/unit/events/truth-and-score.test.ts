import { describe, expect, it } from 'vitest';
import type { CameraRules } from '@sightline/shared/events';
import type { MotRow } from '../../../tracking/mot-file.ts';
import { matchWithin, scoreCrossings, sumScores } from '../../../events/score.ts';
import { standingGroundTruth, STANDING_FRAMES } from '../../../events/standing.ts';
import { trueCrossings, type Crossing } from '../../../events/truth.ts';

const W = 640;
const H = 480;
/** An upright line at x 320 (0.5) from y 480 up to y 96: the picture's right is side +1, walking right is `in`. */
const rules: CameraRules = { lines: [{ name: 'door', from: [0.5, 1], to: [0.5, 0.2] }], zones: [] };

/** A 40x120 box whose bottom centre is at (x, y) pixels. */
const at = (frame: number, id: number, x: number, y = 400): MotRow => ({ frame, id, box: [x - 20, y - 120, x + 20, y], score: 1 });

describe('trueCrossings', () => {
  it("finds each change of side() across the segment, at the first frame on the new side, in the issue's direction", () => {
    const rows = [
      ...Array.from({ length: 20 }, (_, k) => at(k + 1, 1, 280 + 5 * k)), // right: x 320 at k 8, 325 at k 9 (frame 10)
      ...Array.from({ length: 20 }, (_, k) => at(k + 1, 2, 400 - 10 * k)), // left: 320 at k 8, 310 at frame 10
    ];
    expect(trueCrossings(rows, rules, W, H)).toEqual([
      { line: 'door', direction: 'in', frame: 10, id: 1 },
      { line: 'door', direction: 'out', frame: 10, id: 2 },
    ]);
  });

  it('counts nothing past the end of the segment, and each crossing of one that goes there and back', () => {
    const above = Array.from({ length: 20 }, (_, k) => at(k + 1, 1, 280 + 5 * k, 60)); // feet at y 60: above the line's top
    expect(trueCrossings(above, rules, W, H)).toEqual([]);
    const xs = [300, 310, 330, 340, 330, 310, 300, 330];
    const back = xs.map((x, k) => at(k + 1, 3, x));
    expect(trueCrossings(back, rules, W, H).map((c) => `${c.direction}@${c.frame}`)).toEqual(['in@3', 'out@6', 'in@8']);
  });

  it('finds none in the standing scene: three people standing still, each on a line', () => {
    const gt = standingGroundTruth(W);
    expect(gt).toHaveLength(3 * STANDING_FRAMES);
    const standing: CameraRules = {
      lines: [0.25, 0.5, 0.75].map((x, i) => ({ name: `l${i}`, from: [x, 1], to: [x, 0.1] })),
      zones: [],
    };
    expect(trueCrossings(gt, standing, W, H)).toEqual([]);
  });
});

const c = (line: string, direction: 'in' | 'out', frame: number): Crossing => ({ line, direction, frame, id: 0 });

describe('scoring', () => {
  it('matchWithin pairs one to one within the window', () => {
    expect(matchWithin([10, 11], [12], 5)).toBe(1);
    expect(matchWithin([10, 30], [14, 26], 5)).toBe(2);
    expect(matchWithin([10], [16], 5)).toBe(0);
    expect(matchWithin([1, 7, 13], [6, 12, 18], 5)).toBe(3); // greedy by time still finds the full matching
  });

  it('count error is per line and direction; unexplained reports are those no true crossing of the same line and direction explains', () => {
    const truth = [c('a', 'in', 10), c('a', 'in', 40), c('a', 'out', 20), c('b', 'in', 15)];
    const reported = [c('a', 'in', 12), c('a', 'in', 48), c('a', 'out', 22), c('a', 'out', 23), c('b', 'out', 15)];
    expect(scoreCrossings(reported, truth)).toEqual({
      truth: 4,
      reported: 5,
      countError: 0 + 1 + 1 + 1, // a in: 2 vs 2; a out: 2 vs 1; b in: 0 vs 1; b out: 1 vs 0
      unexplained: 3, // a in @48 (8 late), the second a out, b out (wrong direction)
      missed: 2, // a in @40, b in @15
    });
    expect(sumScores([scoreCrossings(reported, truth), scoreCrossings([], truth)])).toMatchObject({ truth: 8, countError: 7, missed: 6 });
  });
});
