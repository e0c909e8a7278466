import { describe, expect, it } from 'vitest';
import { DEFAULT_TRACKER_OPTIONS, resolveTrackerOptions } from '../../../src/tracking/options.ts';

describe('resolveTrackerOptions', () => {
  it('fills what is not given from the defaults', () => {
    expect(resolveTrackerOptions()).toEqual(DEFAULT_TRACKER_OPTIONS);
    expect(resolveTrackerOptions({ maxLostMs: 3000 })).toEqual({ ...DEFAULT_TRACKER_OPTIONS, maxLostMs: 3000 });
  });

  it('refuses negative or non-finite values, a low score above the high one, and an empty trail', () => {
    expect(() => resolveTrackerOptions({ maxCoastMs: -5 })).toThrow(/maxCoastMs/);
    expect(() => resolveTrackerOptions({ matchIou: Number.NaN })).toThrow(/matchIou/);
    expect(() => resolveTrackerOptions({ lowScore: 0.6, highScore: 0.5 })).toThrow(/lowScore/);
    expect(() => resolveTrackerOptions({ trailLength: 2.5 })).toThrow(/trailLength/);
  });
});
