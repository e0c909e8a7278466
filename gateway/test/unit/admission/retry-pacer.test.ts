import { describe, expect, it } from 'vitest';
import { MAX_RETRY_AFTER_MS, RetryPacer } from '../../../src/admission/retry-pacer.ts';

describe('retry pacer', () => {
  it('tells a lone refused client to come back once the backlog ahead of it has cleared, rounded up to whole ms', () => {
    expect(new RetryPacer().next(1000, 37.2, 10)).toBe(38);
    expect(new RetryPacer().next(1000, 0, 10)).toBe(1);
  });

  it('never says 0 or less: a backlog that has already cleared still means "after this one"', () => {
    const pacer = new RetryPacer();
    expect(pacer.next(500, -250, 0)).toBe(1);
    expect(pacer.next(9000, Number.NEGATIVE_INFINITY, 0)).toBe(1);
  });

  it('spreads the clients refused in one burst one slot apart, so they do not all return in the same millisecond', () => {
    const pacer = new RetryPacer();
    const burst = Array.from({ length: 5 }, () => pacer.next(2000, 5, 12.5));
    expect(burst).toEqual([5, 18, 30, 43, 55]);
  });

  it('hands out later slots from the latest one, as time passes', () => {
    const pacer = new RetryPacer();
    expect(pacer.next(0, 0, 100)).toBe(1); // slot at 0
    expect(pacer.next(40, 0, 100)).toBe(60); // slot at 100
    expect(pacer.next(300, 0, 100)).toBe(1); // the round has passed: now is the earliest
  });

  it(`asks no one to wait more than ${MAX_RETRY_AFTER_MS} ms: a backlog longer than that is capped, and the round starts over past it`, () => {
    expect(new RetryPacer().next(0, 60_000, 10)).toBe(MAX_RETRY_AFTER_MS);
    const pacer = new RetryPacer();
    const answers = Array.from({ length: 6 }, () => pacer.next(0, 0, 300));
    expect(answers).toEqual([1, 300, 600, 900, 1, 300]);
    expect(Math.max(...answers)).toBeLessThanOrEqual(MAX_RETRY_AFTER_MS);
  });

  it('treats a negative slot as none: refusals in one burst then share the earliest time', () => {
    const pacer = new RetryPacer();
    expect([pacer.next(0, 20, -5), pacer.next(0, 20, -5)]).toEqual([20, 20]);
  });
});
