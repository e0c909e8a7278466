import { describe, expect, it } from 'vitest';
import { delayUntil, framesInDuration, pacedTiming, RateCap, scheduledAt } from '../../../client/pacing.ts';

describe('open-loop schedule', () => {
  it('puts frame i at start + i / rate', () => {
    expect(scheduledAt(1000, 0, 10)).toBe(1000);
    expect(scheduledAt(1000, 1, 10)).toBe(1100);
    expect(scheduledAt(1000, 30, 30)).toBe(2000);
    expect(scheduledAt(0, 3, 40)).toBeCloseTo(75);
  });

  it('waits until a frame is due, and not at all once it is late', () => {
    expect(delayUntil(1100, 1040)).toBe(60);
    expect(delayUntil(1100, 1100)).toBe(0);
    expect(delayUntil(1100, 1500)).toBe(0);
  });

  it('counts the frames scheduled before the end of a run', () => {
    expect(framesInDuration(1000, 10)).toBe(10);
    expect(framesInDuration(60_000, 10)).toBe(600);
    expect(framesInDuration(1050, 10)).toBe(11);
    expect(framesInDuration(0, 10)).toBe(0);
  });

  it('measures latency from the scheduled time, and the send lag apart', () => {
    // Due at 100, the client only got it out at 160 (busy), the answer came at 200.
    expect(pacedTiming(100, 160, 200)).toEqual({ latencyMs: 100, sendLagMs: 60 });
    expect(pacedTiming(100, 100, 130)).toEqual({ latencyMs: 30, sendLagMs: 0 });
  });
});

describe('RateCap', () => {
  it('spaces sends at 90% of the limit, queuing lanes that ask at the same moment', () => {
    const cap = new RateCap(200); // 1000 / 180 = 5.56 ms apart
    expect(cap.claim(0)).toBe(0);
    expect(cap.claim(0)).toBeCloseTo(5.556, 2);
    expect(cap.claim(0)).toBeCloseTo(11.111, 2);
    // Later than the next slot: no wait.
    expect(cap.claim(100)).toBe(0);
    expect(cap.claim(101)).toBeCloseTo(4.556, 2);
  });

  it('never makes a client wait when the gateway announces no limit', () => {
    const cap = new RateCap(undefined);
    expect([cap.claim(0), cap.claim(0), cap.claim(0)]).toEqual([0, 0, 0]);
  });
});
