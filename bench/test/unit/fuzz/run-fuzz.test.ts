import { describe, expect, it } from 'vitest';
import type { PacingClock } from '../../../client/pacing.ts';
import { Pacer } from '../../../fuzz/run-fuzz.ts';

/** A clock that moves only when the pacer sleeps, or when the test says. */
function fakeClock(): PacingClock & { t: number; sleeps: number[] } {
  const clock = {
    t: 1000,
    sleeps: [] as number[],
    now: () => clock.t,
    sleep: async (ms: number) => {
      clock.sleeps.push(ms);
      clock.t += ms;
    },
  };
  return clock;
}

describe('fuzz runner pacing', () => {
  it('spaces messages to stay under a rate, without delaying the first', async () => {
    const clock = fakeClock();
    const pacer = new Pacer(200, clock); // 5 ms apart
    const sentAt: number[] = [];
    for (let i = 0; i < 21; i++) {
      await pacer.wait();
      sentAt.push(clock.now());
    }
    expect(sentAt).toEqual(Array.from({ length: 21 }, (_, i) => 1000 + 5 * i));
    expect(clock.sleeps).toEqual(Array(20).fill(5));
  });

  it('does not wait for a message whose slot has passed, nor save up slots while idle', async () => {
    const clock = fakeClock();
    const pacer = new Pacer(200, clock);
    await pacer.wait();
    clock.t += 100; // a long case in between
    await pacer.wait();
    await pacer.wait();
    expect(clock.sleeps).toEqual([5]);
  });
});
