import { describe, expect, it } from 'vitest';
import { MIN_REPLY_TIMEOUT_MS, ReplyTimeout } from '../../../webrtc/reply-timeout.ts';

describe("the data channel's reply timeout", () => {
  it('waits the hard timeout until a reply has been seen', () => {
    expect(new ReplyTimeout(2000).ms).toBe(2000);
  });

  it('follows RFC 6298: smoothed round trip plus four times its variation', () => {
    const timeout = new ReplyTimeout(5000);
    timeout.observe(400); // srtt 400, rttvar 200
    expect(timeout.ms).toBe(1200);
    timeout.observe(200); // rttvar 0.75*200 + 0.25*200 = 200, srtt 0.875*400 + 0.125*200 = 375
    expect(timeout.ms).toBe(1175);
  });

  it('settles near the round trip when replies are steady, never below the floor nor above the hard timeout', () => {
    const steady = new ReplyTimeout(2000);
    for (let i = 0; i < 100; i++) steady.observe(300);
    expect(steady.ms).toBeGreaterThanOrEqual(300);
    expect(steady.ms).toBeLessThan(310);
    const fast = new ReplyTimeout(2000);
    for (let i = 0; i < 100; i++) fast.observe(5);
    expect(fast.ms).toBe(MIN_REPLY_TIMEOUT_MS);
    const slow = new ReplyTimeout(2000);
    slow.observe(1500);
    expect(slow.ms).toBe(2000);
  });

  it('ignores what cannot be a latency', () => {
    const timeout = new ReplyTimeout(2000);
    timeout.observe(Number.NaN);
    timeout.observe(-1);
    expect(timeout.ms).toBe(2000);
  });
});
