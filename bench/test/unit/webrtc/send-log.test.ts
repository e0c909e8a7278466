import { describe, expect, it } from 'vitest';
import { rtpKey, SendLog } from '../../../webrtc/send-log.ts';

describe('WebRTC send log: replies matched to frames', () => {
  it('matches each result to its frame by RTP timestamp, whatever order results come in', () => {
    const log = new SendLog<number>(1000);
    log.sent(3_000, 100, 5000);
    log.sent(6_000, 133, 4000);
    log.sent(9_000, 166, 4500);
    expect(log.replied(9_000, 230, 'detected')).toBe('matched');
    expect(log.replied(3_000, 250, 'detected', { detections: 2 })).toBe('matched');
    const [first, second, third] = log.records();
    expect(first).toMatchObject({ outcome: 'detected', latencyMs: 150, reply: { detections: 2 } });
    expect(second).toMatchObject({ outcome: 'pending' });
    expect(third).toMatchObject({ outcome: 'detected', latencyMs: 64 });
    expect(log.pendingCount).toBe(1);
  });

  it('matches across the 32-bit wrap of the RTP clock: the servers echo the wire value, which stays unique', () => {
    const log = new SendLog<number>(1000);
    const origin = 0xffff_ffff - 4_000;
    const stamps = [0, 3_000, 6_000, 9_000].map((ticks) => (origin + ticks) % 2 ** 32);
    expect(stamps[2]).toBeLessThan(stamps[1]!); // wrapped
    stamps.forEach((stamp, i) => log.sent(stamp, i * 33, 1000));
    for (const [i, stamp] of stamps.entries()) expect(log.replied(rtpKey(stamp)!, i * 33 + 50, 'detected')).toBe('matched');
    expect(log.records().map((r) => r.latencyMs)).toEqual([50, 50, 50, 50]);
  });

  it('takes only what an RTP header can carry as a timestamp', () => {
    expect(rtpKey(0)).toBe(0);
    expect(rtpKey(0xffff_ffff)).toBe(0xffff_ffff);
    for (const bad of [-1, 2 ** 32, 1.5, '3000', undefined, null, Number.NaN]) expect(rtpKey(bad)).toBeUndefined();
  });

  it('counts a reply naming no frame sent as unknown, and a second reply to the same frame as a duplicate', () => {
    const log = new SendLog<number>(1000);
    log.sent(1, 0, 10);
    expect(log.replied(2, 10, 'detected')).toBe('unknown');
    expect(log.replied(1, 10, 'refused', { reason: 'dropped:superseded' })).toBe('matched');
    expect(log.replied(1, 20, 'detected')).toBe('duplicate');
    expect(log.records()[0]).toMatchObject({ outcome: 'refused', reply: { reason: 'dropped:superseded' } });
    expect([log.unknown, log.duplicates]).toEqual([1, 1]);
  });

  it('loses a frame with no reply within the timeout, oldest first, and counts a reply after it as late', () => {
    const log = new SendLog<number>(500);
    log.sent(1, 0, 10);
    log.sent(2, 100, 10);
    log.sent(3, 450, 10);
    expect(log.expire(499)).toEqual([]);
    expect(log.expire(600).map((r) => r.key)).toEqual([1, 2]);
    expect(log.pendingCount).toBe(1);
    expect(log.replied(1, 610, 'detected')).toBe('late');
    // A reply past the timeout is late even before expire() has run.
    expect(log.replied(3, 951, 'detected')).toBe('late');
    expect(log.records().map((r) => r.outcome)).toEqual(['lost', 'lost', 'lost']);
    expect(log.late).toBe(2);
  });

  it('loses whatever is still pending when the run ends, and a key sent again supersedes the old frame', () => {
    const log = new SendLog<number>(1000);
    log.sent(7, 0, 10);
    log.sent(7, 50, 10);
    expect(log.replied(7, 60, 'detected')).toBe('matched');
    log.sent(8, 70, 10);
    log.finish();
    expect(log.records().map((r) => [r.sentAt, r.outcome])).toEqual([
      [0, 'lost'],
      [50, 'detected'],
      [70, 'lost'],
    ]);
    expect(log.pendingCount).toBe(0);
  });

  it('counts the frames still awaiting a reply sent since a time, and gives an answered frame its latency', () => {
    const log = new SendLog<number>(5000);
    [0, 100, 200, 300].forEach((at, i) => log.sent(i, at, 10));
    log.replied(2, 260, 'detected');
    expect(log.pendingSince(0)).toBe(3);
    expect(log.pendingSince(150)).toBe(1);
    expect(log.latencyOf(2)).toBe(60);
    expect(log.latencyOf(1)).toBeUndefined();
  });
});
