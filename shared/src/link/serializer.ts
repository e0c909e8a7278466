/**
 * The bottleneck's clock: when the last byte of a packet, offered at a time, has been put on the wire.
 * Packets are served first come, first served, so each answer depends only on the packets before it.
 */
import { MTU_BYTES } from './profile.ts';
import type { Trace } from './trace.ts';

export interface Serializer {
  /** Offers `bytes` at `now`; returns when its last byte is on the wire (>= now). */
  serialize(now: number, bytes: number): number;
  /** When the wire is free again (after everything offered so far). */
  readonly idleAt: number;
  /** The rate the queue drains at, bits per second (a trace's mean); undefined for no bottleneck. */
  readonly drainBps: number | undefined;
}

/** No bottleneck: bytes are on the wire the moment they come. */
export class Unlimited implements Serializer {
  readonly drainBps = undefined;
  idleAt = 0;
  serialize(now: number): number {
    this.idleAt = Math.max(this.idleAt, now);
    return now;
  }
}

/** A constant rate: `bytes * 8 / rate` each, back to back. */
export class ConstantRate implements Serializer {
  idleAt = Number.NEGATIVE_INFINITY;
  private readonly bytesPerMs: number;

  constructor(readonly drainBps: number) {
    this.bytesPerMs = drainBps / 8000;
  }

  serialize(now: number, bytes: number): number {
    this.idleAt = Math.max(now, this.idleAt) + bytes / this.bytesPerMs;
    return this.idleAt;
  }
}

/**
 * Mahimahi's delivery opportunities: each opportunity carries up to 1500 bytes of whatever is queued (a
 * packet may span opportunities, and several small ones share one); an opportunity with nothing queued is
 * lost. Times are relative to `origin`, when the link came up.
 */
export class TraceRate implements Serializer {
  readonly drainBps: number;
  /** Index of the next opportunity to use, counting across repetitions of the trace. */
  private next = 0;
  /** Bytes still free in opportunity `next`. */
  private room = MTU_BYTES;
  idleAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly trace: Trace,
    private readonly origin = 0,
  ) {
    this.drainBps = trace.meanBps;
  }

  /** Time of opportunity `k` (k counts on through the repetitions). */
  private timeOf(k: number): number {
    const n = this.trace.opportunities.length;
    return this.origin + Math.floor(k / n) * this.trace.periodMs + this.trace.opportunities[k % n]!;
  }

  /** First opportunity at or after `t`. */
  private firstAtOrAfter(t: number): number {
    const { opportunities, periodMs } = this.trace;
    const n = opportunities.length;
    const cycle = Math.max(0, Math.floor((t - this.origin) / periodMs));
    const within = t - this.origin - cycle * periodMs;
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (opportunities[mid]! < within) lo = mid + 1;
      else hi = mid;
    }
    return cycle * n + lo;
  }

  serialize(now: number, bytes: number): number {
    if (this.timeOf(this.next) < now) {
      this.next = this.firstAtOrAfter(now);
      this.room = MTU_BYTES;
    }
    let left = bytes;
    for (;;) {
      const used = Math.min(this.room, left);
      this.room -= used;
      left -= used;
      const at = this.timeOf(this.next);
      if (this.room === 0) {
        this.next++;
        this.room = MTU_BYTES;
      }
      if (left === 0) {
        this.idleAt = Math.max(this.idleAt, at);
        return at;
      }
    }
  }
}
