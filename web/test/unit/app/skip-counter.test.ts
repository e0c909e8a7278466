import { describe, expect, it } from 'vitest';
import { SkipCounter } from '../../../src/app/skip-counter.ts';

describe('SkipCounter', () => {
  it('counts the source frames presented between two frames taken for sending', () => {
    const skips = new SkipCounter();
    expect(skips.take(10)).toBe(0); // first frame of a run: nothing before it to compare with
    expect(skips.take(11)).toBe(0); // the very next frame: nothing skipped
    expect(skips.take(15)).toBe(3); // 12, 13, 14 went by while waiting for the answer
  });

  it('carries a frame that was taken but not sent (and its skips) to the next one', () => {
    const skips = new SkipCounter();
    skips.take(1);
    const skipped = skips.take(4); // 2, 3
    skips.giveBack(skipped); // frame 4 failed to encode
    expect(skips.take(6)).toBe(2 + 1 + 1); // 2, 3, then 4 itself, then 5
  });

  it('does not count frames across a break (pause, outage, new source)', () => {
    const skips = new SkipCounter();
    skips.take(1);
    skips.giveBack(0);
    skips.breakRun();
    expect(skips.take(500)).toBe(0);
    expect(skips.take(502)).toBe(1);
  });
});
