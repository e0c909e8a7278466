import { describe, expect, it } from 'vitest';
import { interleavedSteps } from '../../../compare/schedule.ts';

describe('compare: the order of the halves', () => {
  it('runs cell by cell, each half round-robin over the servers', () => {
    const order = interleavedSteps(2, 3, 2).map((s) => `c${s.cell} s${s.server} h${s.half}`);
    expect(order).toEqual([
      'c0 s0 h0',
      'c0 s1 h0',
      'c0 s2 h0',
      'c0 s0 h1',
      'c0 s1 h1',
      'c0 s2 h1',
      'c1 s0 h0',
      'c1 s1 h0',
      'c1 s2 h0',
      'c1 s0 h1',
      'c1 s1 h1',
      'c1 s2 h1',
    ]);
  });

  it('gives every server every half of every cell exactly once', () => {
    const steps = interleavedSteps(2, 5, 4);
    expect(steps).toHaveLength(2 * 5 * 4);
    expect(new Set(steps.map((s) => `${s.cell}/${s.server}/${s.half}`)).size).toBe(steps.length);
  });

  it('has nothing to run without servers or halves', () => {
    expect(interleavedSteps(2, 0, 2)).toEqual([]);
    expect(interleavedSteps(2, 3, 0)).toEqual([]);
  });
});
