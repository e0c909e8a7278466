import { describe, expect, it } from 'vitest';
import { ReceiveBandwidthEstimator } from '../../../src/rtp/receive-bandwidth-estimator.ts';

const MAX_BPS = 2_500_000;
const MIN_BPS = 150_000;
const PACKET_BYTES = 1_200;
/** The bottleneck's buffer, as the lte-congested preset's: a packet that would wait longer is dropped. */
const QUEUE_LIMIT_MS = 1_000;

interface PathOptions {
  seconds: number;
  /** The bottleneck's rate at a time (ms): a FIFO drained at this rate, then a fixed propagation delay. */
  linkBps: (nowMs: number) => number;
  /** The most the sender encodes whatever it is asked (aiortc's VP8 stops at 1.5 Mbit/s). */
  senderMaxBps?: number;
  /** Whether the sender follows the estimate; false: it sends at senderMaxBps, as with a fixed REMB. */
  follows?: boolean;
  rtpStart?: number;
  lossEvery?: number;
  /** Up to this much random delay per packet (ms), packets overtaking each other as the link lab's jitter does. */
  jitterMs?: number;
}

/**
 * A sender at 25 fps (no pacing: a frame's packets leave together, as aiortc sends them) through one
 * bottleneck queue, driving the estimator on a 1 ms fake clock. Returns the REMBs asked for and, per
 * frame, how long its first packet queued.
 */
function runPath(options: PathOptions) {
  const estimator = new ReceiveBandwidthEstimator({ maxBitrateBps: MAX_BPS, minBitrateBps: MIN_BPS });
  const senderMax = options.senderMaxBps ?? 1_500_000;
  const pending: { arrivalMs: number; rtp: number; bytes: number }[] = [];
  const queueDelays: { atMs: number; ms: number }[] = [];
  const targets: { atMs: number; bps: number }[] = [];
  let linkFreeAtMs = 0;
  let seed = 7;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  let sequence = 0;
  const propagationMs = 40;
  for (let now = 0; now < options.seconds * 1000; now += 1) {
    if (now % 40 === 0) {
      const rate = options.follows === false ? senderMax : Math.min(senderMax, estimator.targetBps);
      const frameBytes = rate / 8 / 25;
      const rtp = ((options.rtpStart ?? 12_345) + now * 90) >>> 0;
      for (let sent = 0; sent < frameBytes; sent += PACKET_BYTES) {
        const bytes = Math.min(PACKET_BYTES, frameBytes - sent);
        const waitMs = Math.max(linkFreeAtMs, now) - now;
        if (sent === 0) queueDelays.push({ atMs: now, ms: waitMs });
        sequence += 1;
        if (waitMs > QUEUE_LIMIT_MS) continue; // the bottleneck's buffer is full: dropped
        linkFreeAtMs = Math.max(linkFreeAtMs, now) + (bytes * 8 * 1000) / options.linkBps(now);
        if (options.lossEvery && sequence % options.lossEvery === 0) continue;
        pending.push({ arrivalMs: linkFreeAtMs + propagationMs + random() * (options.jitterMs ?? 0), rtp, bytes });
        pending.sort((a, b) => a.arrivalMs - b.arrivalMs);
      }
    }
    while (pending.length && pending[0]!.arrivalMs <= now) {
      const packet = pending.shift()!;
      estimator.onPacket(packet.arrivalMs, packet.rtp, packet.bytes);
    }
    if (now % 250 === 0) {
      const lossFraction = options.lossEvery ? 1 / options.lossEvery : 0;
      targets.push({ atMs: now, bps: estimator.update(now, lossFraction) });
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  const queueDelayBetween = (fromS: number, toS: number) =>
    median(queueDelays.filter((q) => q.atMs >= fromS * 1000 && q.atMs < toS * 1000).map((q) => q.ms));
  const targetAt = (s: number) => targets.findLast((t) => t.atMs <= s * 1000)!.bps;
  return { estimator, targets, queueDelayBetween, targetAt };
}

describe('ReceiveBandwidthEstimator', () => {
  it('asks for the most while the path carries what is sent (no queue grows)', () => {
    const run = runPath({ seconds: 20, linkBps: () => 20e6 });
    expect(run.targets.every((t) => t.bps === MAX_BPS)).toBe(true);
    expect(run.estimator.usage).toBe('normal');
  });

  it('finds a slow uplink whose queue a fixed REMB would fill, and drains it', () => {
    const uplink = () => 0.5e6;
    // The same sender held at its ceiling (a fixed REMB): the queue only grows.
    const fixed = runPath({ seconds: 20, linkBps: uplink, follows: false });
    expect(fixed.queueDelayBetween(10, 20)).toBeGreaterThan(900);

    const run = runPath({ seconds: 30, linkBps: uplink });
    expect(run.targets.some((t) => t.bps < 0.5e6)).toBe(true);
    // After the first over-use it keeps the queue short: under 3 frames' worth, rather than a second.
    expect(run.queueDelayBetween(5, 30)).toBeLessThan(100);
    expect(run.targetAt(30)).toBeLessThanOrEqual(0.6e6);
    expect(run.targetAt(30)).toBeGreaterThanOrEqual(MIN_BPS);
  });

  it('climbs back when the bottleneck goes away', () => {
    const run = runPath({ seconds: 40, linkBps: (now) => (now < 10_000 ? 0.5e6 : 20e6) });
    const low = Math.min(...run.targets.filter((t) => t.atMs < 12_000).map((t) => t.bps));
    expect(low).toBeLessThan(0.5e6);
    expect(run.targetAt(40)).toBeGreaterThan(2 * low);
    expect(run.queueDelayBetween(20, 40)).toBeLessThan(5);
  });

  it('takes jitter that reorders packets for noise, not for a queue', () => {
    const run = runPath({ seconds: 30, linkBps: () => 20e6, jitterMs: 10 });
    expect(run.targetAt(30)).toBe(MAX_BPS);
    expect(run.targets.filter((t) => t.bps < MAX_BPS).length).toBeLessThan(run.targets.length / 10);
  });

  it('lowers the rate for loss above 10%, not for a path that loses 2%', () => {
    expect(runPath({ seconds: 10, linkBps: () => 20e6, lossEvery: 50 }).targetAt(10)).toBe(MAX_BPS);
    expect(runPath({ seconds: 10, linkBps: () => 20e6, lossEvery: 4 }).targetAt(10)).toBeLessThan(MAX_BPS / 2);
  });

  it('reads across the RTP clock wrap as an ordinary frame interval', () => {
    // 2^32 ticks at 90 kHz wrap 5 s into the run.
    const run = runPath({ seconds: 10, linkBps: () => 20e6, rtpStart: 2 ** 32 - 5 * 90_000 });
    expect(run.targets.every((t) => t.bps === MAX_BPS)).toBe(true);
    expect(run.estimator.queueDelayMs(10_000)).toBeLessThan(1);
  });

  it('ignores a late packet of an earlier frame', () => {
    const estimator = new ReceiveBandwidthEstimator({ maxBitrateBps: MAX_BPS, minBitrateBps: MIN_BPS });
    for (let frame = 0; frame < 50; frame += 1) estimator.onPacket(frame * 40 + 40, frame * 3_600, 1_000);
    estimator.onPacket(50 * 40 + 40, 10 * 3_600, 1_000); // frame 10, two seconds late
    for (let frame = 50; frame < 60; frame += 1) estimator.onPacket(frame * 40 + 41, frame * 3_600, 1_000);
    expect(estimator.queueDelayMs(60 * 40 + 41)).toBeLessThan(2);
    expect(estimator.update(60 * 40 + 41)).toBe(MAX_BPS);
  });

  it('stays within its bounds', () => {
    const estimator = new ReceiveBandwidthEstimator({ maxBitrateBps: 1_000_000, minBitrateBps: 200_000 });
    for (let i = 0; i < 10; i += 1) estimator.update(i * 250, 0.9);
    expect(estimator.targetBps).toBe(200_000);
    expect(estimator.update(100_000)).toBeLessThanOrEqual(1_000_000);
  });
});
