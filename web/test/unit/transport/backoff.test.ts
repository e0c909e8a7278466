import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../../src/transport/backoff.ts';

describe('backoffDelay', () => {
  const options = { baseMs: 500, maxMs: 8000, factor: 2, jitter: 0.5 };
  it('grows exponentially up to the cap', () => {
    const top = (attempt: number) => backoffDelay(attempt, options, () => 1);
    expect([0, 1, 2, 3, 4, 5, 10].map(top)).toEqual([500, 1000, 2000, 4000, 8000, 8000, 8000]);
  });
  it('jitters within [(1 - j) * d, d]', () => {
    expect(backoffDelay(2, options, () => 0)).toBe(1000);
    expect(backoffDelay(2, options, () => 0.5)).toBe(1500);
  });
});
