import { describe, expect, it } from 'vitest';
import {
  Bottleneck,
  parseLinkSpec,
  seededRandom,
  STREAM_END,
  StreamLink,
  streamWireBytes,
  TCP_MSS,
  traceOf,
  type StreamItem,
} from '@sightline/shared/link';

const CHUNK = new Uint8Array(64 * 1024);

/** A sender that writes 64 KB whenever the link accepts more, for `ms`, stepping 1 ms; records each delivery. */
function bulk(link: StreamLink, ms: number) {
  const delivered: Array<{ at: number; bytes: number }> = [];
  let maxHeld = 0;
  for (let t = 0; t <= ms; t++) {
    while (link.acceptsMore(t)) link.write(t, CHUNK);
    maxHeld = Math.max(maxHeld, link.heldBytes);
    for (const item of link.takeDue(t)) if (item !== STREAM_END) delivered.push({ at: t, bytes: item.byteLength });
  }
  const between = (from: number, to: number) => delivered.filter((d) => d.at > from && d.at <= to).reduce((sum, d) => sum + d.bytes, 0);
  return { delivered, between, maxHeld };
}

/** Writes `bytes` at `at` and returns when its last piece comes out (taking whatever was ahead of it). */
function transit(link: StreamLink, at: number, bytes = 100, horizon = 100_000): number {
  const marker = new Uint8Array(bytes);
  link.write(at, marker);
  for (let t = at; t <= at + horizon; t += 0.25) {
    const due = link.takeDue(t);
    if (due.some((item) => item === marker || (item !== STREAM_END && item.buffer === marker.buffer))) return t;
  }
  throw new Error('never delivered');
}

describe('stream link (fake clock)', () => {
  it('carries a bulk transfer at the bandwidth: payload = rate x 1448/1500 (headers on the wire)', () => {
    for (const bps of [2e6, 8e6]) {
      const link = new StreamLink(parseLinkSpec(`bw=${bps / 1e6}mbit,delay=20ms`).up, { seed: 1 });
      const { between } = bulk(link, 6000);
      const payloadBps = (between(1000, 6000) * 8) / 5;
      expect(payloadBps / bps).toBeCloseTo(TCP_MSS / (TCP_MSS + 52), 2);
      expect(Math.abs(payloadBps / bps - 1)).toBeLessThan(0.1);
    }
  });

  it('adds the one-way delay, plus serialization at the rate', () => {
    expect(transit(new StreamLink(parseLinkSpec('delay=40ms').up, { seed: 1 }), 1000)).toBe(1040);
    const capped = new StreamLink(parseLinkSpec('delay=40ms,bw=1mbit').up, { seed: 1 });
    const serialization = (streamWireBytes(1000) * 8) / 1000; // ms at 1 Mbit/s
    expect(transit(capped, 1000, 1000)).toBeCloseTo(1040 + serialization, 0);
  });

  it('keeps each delay within delay +- jitter and never reorders the stream', () => {
    const link = new StreamLink(parseLinkSpec('delay=40ms,jitter=10ms').up, { seed: 7 });
    const delays: number[] = [];
    for (let i = 0; i < 400; i++) delays.push(transit(link, i * 200) - i * 200);
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(30);
    expect(Math.max(...delays)).toBeLessThanOrEqual(50);
    // The jitter is really there: both ends of the range are reached.
    expect(Math.min(...delays)).toBeLessThan(32);
    expect(Math.max(...delays)).toBeGreaterThan(48);

    // Writes 1 ms apart under 10 ms jitter would cross; a byte stream delivers them in order.
    const dense = new StreamLink(parseLinkSpec('delay=40ms,jitter=10ms').up, { seed: 3 });
    for (let i = 0; i < 200; i++) dense.write(i, Uint8Array.of(i));
    const order: number[] = [];
    for (let t = 0; t < 400; t++) for (const item of dense.takeDue(t)) order.push((item as Uint8Array)[0]!);
    expect(order).toEqual(Array.from({ length: 200 }, (_, i) => i));
  });

  it('fills its queue under a bulk sender: delay grows by the queue (bufferbloat), then the writer is paused', () => {
    // 1 Mbit/s, 200 ms queue = 25,000 bytes.
    const link = new StreamLink(parseLinkSpec('bw=1mbit,delay=10ms,queue=200ms').up, { seed: 1 });
    expect(link.queueLimit).toBe(25_000);
    const idle = transit(link, 0, 100) - 0;
    expect(idle).toBeLessThan(12);
    // A sender that keeps writing while accepted; the paused reader is the only thing that stops it.
    let t = 100;
    for (; t < 3100; t++) {
      while (link.acceptsMore(t)) link.write(t, new Uint8Array(1448));
      link.takeDue(t);
    }
    while (link.acceptsMore(t)) link.write(t, new Uint8Array(1448));
    expect(link.acceptsMore(t)).toBe(false);
    expect(link.backlogBytes(t)).toBeGreaterThanOrEqual(25_000);
    // A byte written now waits behind a full queue: ~200 ms more than on the idle link.
    const loaded = transit(link, t, 1, 10_000) - t;
    expect(loaded).toBeGreaterThan(idle + 190);
    expect(loaded).toBeLessThan(idle + 200 + 3 * 12 + 2);
  });

  it('holds bounded memory: the queue plus the window, plus one chunk', () => {
    const link = new StreamLink(parseLinkSpec('bw=10mbit,delay=1s,queue=100ms').up, { seed: 1, windowBytes: 256 * 1024 });
    const { maxHeld } = bulk(link, 3000);
    expect(maxHeld).toBeLessThanOrEqual(125_000 + 256 * 1024 + CHUNK.byteLength);
    // No bottleneck at all: the window alone bounds it.
    const free = new StreamLink(parseLinkSpec('delay=1s').up, { seed: 1, windowBytes: 256 * 1024 });
    expect(bulk(free, 3000).maxHeld).toBeLessThanOrEqual(256 * 1024 + CHUNK.byteLength);
  });

  it("holds a new connection's first bytes until the handshake round trip is over", () => {
    const link = new StreamLink(parseLinkSpec('delay=30ms').up, { seed: 1, holdUntil: 1060 });
    expect(transit(link, 1000)).toBe(1090);
    expect(transit(link, 2000)).toBe(2030);
  });

  it('delivers the end of the stream after every byte before it', () => {
    const link = new StreamLink(parseLinkSpec('bw=1mbit,delay=20ms,jitter=5ms').up, { seed: 2 });
    link.write(0, new Uint8Array(10_000));
    link.end(0);
    const items: Array<StreamItem<Uint8Array>> = [];
    for (let t = 0; t < 1000; t++) items.push(...link.takeDue(t));
    expect(items.at(-1)).toBe(STREAM_END);
    expect(items.slice(0, -1).reduce((s, c) => s + (c as Uint8Array).byteLength, 0)).toBe(10_000);
    expect(() => link.write(1000, new Uint8Array(1))).toThrow(/after end/);
  });

  it('follows a Mahimahi trace: throughput is the trace mean, nothing leaves between opportunities', () => {
    // 2 opportunities in the first 10 ms of every 20: 1,200 kbit/s on average, in bursts.
    const trace = traceOf([2, 5, 20]);
    const link = new StreamLink(parseLinkSpec('delay=5ms').up, { seed: 1, trace });
    const { delivered, between } = bulk(link, 10_000);
    const bps = (between(1000, 9000) * 8) / 8;
    expect(bps / trace.meanBps).toBeCloseTo(TCP_MSS / (TCP_MSS + 52), 1);
    // Deliveries happen 5 ms after an opportunity (2, 5 or 0 mod 20).
    for (const d of delivered.filter((x) => x.at > 100)) expect([7, 10, 5]).toContain(d.at % 20);
  });

  it('shares one bottleneck between streams: together they get the rate, and a paused writer learns when to look again', () => {
    const direction = parseLinkSpec('bw=2mbit,delay=10ms,queue=50ms').up;
    const shared = new Bottleneck(direction, seededRandom(1), 0);
    const a = new StreamLink(direction, { seed: 1, bottleneck: shared });
    const b = new StreamLink(direction, { seed: 2, bottleneck: shared });
    let delivered = 0;
    for (let t = 0; t <= 5000; t++) {
      for (const link of [a, b]) {
        while (link.acceptsMore(t)) link.write(t, new Uint8Array(4096));
        for (const item of link.takeDue(t)) if (item !== STREAM_END && t > 1000) delivered += item.byteLength;
      }
    }
    const bps = (delivered * 8) / 4;
    expect(bps / 2e6).toBeCloseTo(TCP_MSS / (TCP_MSS + 52), 1);
    // Full: the writer may look again when the packet in service is on the wire, not before.
    expect(a.acceptsMore(5000)).toBe(false);
    const at = a.acceptsMoreAt(5000);
    expect(at).toBeGreaterThan(5000);
    expect(at).toBeLessThanOrEqual(5000 + ((TCP_MSS + 52) * 8) / 2000 + 1e-9);
    // Held back by the window only: no time to poll at, its own next delivery makes room.
    const windowed = new StreamLink(parseLinkSpec('delay=100ms').up, { seed: 1, windowBytes: 1000 });
    windowed.write(0, new Uint8Array(2000));
    expect(windowed.acceptsMore(1)).toBe(false);
    expect(windowed.acceptsMoreAt(1)).toBe(Number.POSITIVE_INFINITY);
  });
});
