import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { browserClock } from '../../../src/time/clock.ts';

describe('browserClock', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('runs and cancels one-shot timers, and accepts "no timer" when cancelling', () => {
    const fired: string[] = [];
    browserClock.setTimeout(() => fired.push('a'), 10);
    const b = browserClock.setTimeout(() => fired.push('b'), 10);
    browserClock.clearTimeout(b);
    browserClock.clearTimeout(undefined);
    vi.advanceTimersByTime(10);
    expect(fired).toEqual(['a']);
  });

  it('tells monotonic time', () => {
    const first = browserClock.now();
    expect(browserClock.now()).toBeGreaterThanOrEqual(first);
  });
});
