import { describe, expect, it } from 'vitest';
import { DatagramLink, DeliveryPump, parseLinkSpec, STREAM_END, StreamLink, type LinkTimers } from '@sightline/shared/link';
import { ManualClock } from '../../support/manual-clock.ts';

describe('delivery pump', () => {
  it('delivers each packet when it is due, on the clock it is given', () => {
    const clock = new ManualClock();
    const link = new DatagramLink<string>(parseLinkSpec('delay=30ms').up, { seed: 1 });
    const seen: Array<[string, number]> = [];
    const pump = new DeliveryPump(link, (p) => seen.push([p, clock.now()]), clock);
    link.send(clock.now(), 'a', 100);
    pump.poke();
    clock.advanceTo(10);
    link.send(clock.now(), 'b', 100);
    pump.poke();
    clock.advanceTo(29);
    expect(seen).toEqual([]);
    clock.advanceTo(100);
    expect(seen).toEqual([
      ['a', 30],
      ['b', 40],
    ]);
    expect(clock.pending).toBe(0);
  });

  it('re-arms for an earlier delivery, and stops for good', () => {
    const clock = new ManualClock();
    const link = new DatagramLink<string>(parseLinkSpec('delay=50ms,jitter=50ms').up, { seed: 3, preserveOrder: false });
    const seen: string[] = [];
    const pump = new DeliveryPump(link, (p) => seen.push(p), clock);
    for (let i = 0; i < 20; i++) {
      clock.advanceTo(i);
      link.send(i, String(i), 100);
      pump.poke();
    }
    clock.advanceTo(200);
    expect(seen).toHaveLength(20);
    link.send(clock.now(), 'late', 100);
    pump.poke();
    pump.stop();
    clock.advanceTo(1000);
    expect(seen).toHaveLength(20);
  });

  it('calls back after each batch, so a paused writer can resume', () => {
    const clock = new ManualClock();
    const link = new StreamLink(parseLinkSpec('bw=1mbit,queue=1500b').up, { seed: 1 });
    let batches = 0;
    const pump = new DeliveryPump(
      link,
      () => {},
      clock,
      () => batches++,
    );
    link.write(0, new Uint8Array(3000));
    link.end(0);
    expect(link.acceptsMore(0)).toBe(false);
    pump.poke();
    clock.advanceTo(100);
    expect(batches).toBeGreaterThan(0);
    expect(link.acceptsMore(clock.now())).toBe(true);
    expect(link.takeDue(clock.now())).toEqual([]);
    expect(STREAM_END).toBeTypeOf('symbol');
  });

  it('waits out the last milliseconds of a lone delivery by yielding (soon), unless spinMs is 0', () => {
    for (const [spinMs, expectSoon] of [
      [undefined, true],
      [0, false],
    ] as const) {
      const clock = new ManualClock();
      let soonCalls = 0;
      // A "soon" that lets the clock move on a tenth of a millisecond, as an event-loop turn would.
      const timers: LinkTimers = {
        now: () => clock.now(),
        setTimeout: (callback, ms) => clock.setTimeout(callback, ms),
        clearTimeout: (handle) => clock.clearTimeout(handle),
        soon: (callback) => {
          soonCalls++;
          clock.setTimeout(callback, 0.1);
        },
      };
      const link = new DatagramLink<string>(parseLinkSpec('delay=30ms').up, { seed: 1 });
      const seen: number[] = [];
      const pump = new DeliveryPump(link, () => seen.push(clock.now()), timers, undefined, spinMs);
      link.send(0, 'ping', 100);
      pump.poke();
      clock.advanceTo(100);
      expect(seen).toHaveLength(1);
      expect(seen[0]).toBeGreaterThanOrEqual(30);
      expect(seen[0]).toBeLessThan(30.2);
      expect(soonCalls > 0).toBe(expectSoon);
    }
  });
});
