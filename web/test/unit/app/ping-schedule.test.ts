import { describe, expect, it } from 'vitest';
import { PING_GUARD_MS, PONG_WAIT_MS, publishTime } from '../../../src/app/ping-schedule.ts';

describe('publishTime (chart work kept out of the ping round trip)', () => {
  it('leaves rebuilds alone away from pings', () => {
    expect(publishTime(500, { nextPingAt: 1000, pongAwaitedUntil: 0 })).toBe(500);
    expect(publishTime(500, { nextPingAt: undefined, pongAwaitedUntil: 0 })).toBe(500);
  });

  it('moves a rebuild due just before a ping to after its pong window', () => {
    expect(publishTime(1000 - PING_GUARD_MS, { nextPingAt: 1000, pongAwaitedUntil: 0 })).toBe(1000 + PONG_WAIT_MS);
    expect(publishTime(1010, { nextPingAt: 1000, pongAwaitedUntil: 0 })).toBe(1000 + PONG_WAIT_MS);
  });

  it('waits while a pong is awaited', () => {
    expect(publishTime(1050, { nextPingAt: 2000, pongAwaitedUntil: 1300 })).toBe(1300);
    expect(publishTime(1400, { nextPingAt: 2000, pongAwaitedUntil: 1300 })).toBe(1400);
  });
});
