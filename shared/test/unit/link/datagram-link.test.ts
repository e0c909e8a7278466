import { describe, expect, it } from 'vitest';
import { DatagramLink, GilbertElliott, parseLinkSpec, seededRandom, type DatagramFate } from '@sightline/shared/link';

/** |observed - p| within `sigmas` standard deviations of a binomial proportion over n trials. */
function withinBinomial(observed: number, p: number, n: number, sigmas = 4): boolean {
  return Math.abs(observed - p) <= sigmas * Math.sqrt((p * (1 - p)) / n);
}

/** Lengths of the runs of consecutive losses. */
function burstLengths(lost: boolean[]): number[] {
  const runs: number[] = [];
  let run = 0;
  for (const l of lost) {
    if (l) run++;
    else if (run > 0) {
      runs.push(run);
      run = 0;
    }
  }
  if (run > 0) runs.push(run);
  return runs;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Sends `n` packets `gap` ms apart and returns each one's fate and, if delivered, its one-way time. */
function send(link: DatagramLink<number>, n: number, gap: number, bytes = 1200) {
  const fates: DatagramFate[] = [];
  const sentAt: number[] = [];
  const arrivals = new Map<number, number>();
  const order: number[] = [];
  const drain = (t: number) => {
    for (const id of link.takeDue(t)) {
      arrivals.set(id, t - sentAt[id]!);
      order.push(id);
    }
  };
  let t = 0;
  for (let i = 0; i < n; i++) {
    t = i * gap;
    drain(t);
    sentAt.push(t);
    fates.push(link.send(t, i, bytes));
  }
  for (let end = t; link.nextDueAt() !== undefined; end += 1) drain(end);
  return { fates, arrivals, order };
}

describe('datagram link (fake clock)', () => {
  it('loses packets at the random loss rate, within a binomial tolerance', () => {
    const n = 20_000;
    for (const [rate, seed] of [
      [0.01, 1],
      [0.05, 2],
      [0.2, 3],
    ] as const) {
      const link = new DatagramLink<number>(parseLinkSpec(`loss=${rate * 100}%`).up, { seed });
      const { fates, arrivals } = send(link, n, 1);
      const lost = fates.filter((f) => f === 'lost').length;
      expect(withinBinomial(lost / n, rate, n)).toBe(true);
      expect(arrivals.size).toBe(n - lost);
      expect(link.counters).toMatchObject({ offered: n, onWire: n, lost, delivered: n - lost, queueDrops: 0 });
    }
  });

  it('loses in bursts under Gilbert-Elliott: mean loss p/(p+r), bursts of 1/r packets on average', () => {
    const n = 200_000;
    const [p, r] = [0.01, 0.25];
    const link = new DatagramLink<number>(parseLinkSpec(`loss=ge:${p * 100}%:${r * 100}%`).up, { seed: 11 });
    const { fates } = send(link, n, 0.1, 100);
    const lost = fates.map((f) => f === 'lost');
    const rate = lost.filter(Boolean).length / n;
    const expected = p / (p + r);
    // Losses are correlated, so the binomial bound is widened by the burst length (a standard variance inflation).
    expect(Math.abs(rate - expected)).toBeLessThan(4 * Math.sqrt((expected * (1 - expected)) / n) * Math.sqrt(2 / r));
    const bursts = burstLengths(lost);
    expect(mean(bursts)).toBeGreaterThan(1 / r - 0.35);
    expect(mean(bursts)).toBeLessThan(1 / r + 0.35);

    // The same mean loss at random comes in bursts of ~1/(1 - rate) packets: that is what GE adds.
    const random = new DatagramLink<number>(parseLinkSpec(`loss=${(expected * 100).toFixed(3)}%`).up, { seed: 12 });
    const randomBursts = burstLengths(send(random, n, 0.1, 100).fates.map((f) => f === 'lost'));
    expect(mean(randomBursts)).toBeLessThan(1.1);
  });

  it('a Gilbert-Elliott channel with loss in both states has the mean the formula says', () => {
    const channel = new GilbertElliott(0.05, 0.2, 0.5, 0.01, seededRandom(5));
    const n = 200_000;
    let lost = 0;
    for (let i = 0; i < n; i++) if (channel.lose()) lost++;
    const expected = (0.05 * 0.5 + 0.2 * 0.01) / 0.25;
    expect(Math.abs(lost / n - expected)).toBeLessThan(0.01);
  });

  it('delays each packet by delay +- jitter, and reorders them when jitter exceeds their spacing', () => {
    const link = new DatagramLink<number>(parseLinkSpec('delay=40ms,jitter=10ms').up, { seed: 4 });
    const { arrivals, order } = send(link, 2000, 1);
    const delays = [...arrivals.values()];
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(30);
    expect(Math.max(...delays)).toBeLessThanOrEqual(51); // the drain steps 1 ms
    expect(Math.abs(mean(delays) - 40)).toBeLessThan(1);
    expect(order).not.toEqual([...order].sort((a, b) => a - b));

    const fifo = new DatagramLink<number>(parseLinkSpec('delay=40ms,jitter=10ms').up, { seed: 4, preserveOrder: true });
    const inOrder = send(fifo, 2000, 1).order;
    expect(inOrder).toEqual([...inOrder].sort((a, b) => a - b));
  });

  it('drops at the tail when the queue is full, and delivers the rate', () => {
    // 1 Mbit/s with a 15,000-byte queue, offered 2 Mbit/s of 1,250-byte packets (one every 5 ms) for 20 s.
    const link = new DatagramLink<number>(parseLinkSpec('bw=1mbit,delay=10ms,queue=15000b').up, { seed: 1 });
    const { fates, arrivals } = send(link, 4000, 5, 1250);
    const delivered = fates.filter((f) => f === 'sent').length;
    const deliveredBps = (delivered * 1250 * 8) / 20;
    expect(Math.abs(deliveredBps / 1e6 - 1)).toBeLessThan(0.02);
    expect(fates.filter((f) => f === 'queue-full').length).toBeGreaterThan(1900);
    // Queueing delay never exceeds the queue's drain time (120 ms) plus one packet and the propagation.
    expect(Math.max(...arrivals.values())).toBeLessThanOrEqual(10 + 120 + 10 + 1);
    expect(link.counters.queueDrops).toBe(fates.filter((f) => f === 'queue-full').length);
  });

  it('holds no more than maxHeldBytes, whatever the link', () => {
    const link = new DatagramLink<number>(parseLinkSpec('delay=1s').up, { seed: 1, maxHeldBytes: 100_000 });
    let held = 0;
    for (let i = 0; i < 1000; i++) {
      link.send(i / 10, i, 1000);
      held = Math.max(held, link.heldBytes);
    }
    expect(held).toBeLessThanOrEqual(100_000);
    expect(link.counters.memoryDrops).toBe(900);
  });

  it('is deterministic for a seed', () => {
    const run = (seed: number) => send(new DatagramLink<number>(parseLinkSpec('delay=20ms,jitter=5ms,loss=10%').up, { seed }), 500, 2);
    expect(run(9).fates).toEqual(run(9).fates);
    expect([...run(9).arrivals]).toEqual([...run(9).arrivals]);
    expect(run(9).fates).not.toEqual(run(10).fates);
  });
});
