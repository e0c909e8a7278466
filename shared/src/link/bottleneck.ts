/**
 * One direction's bottleneck and propagation, shared by the byte-stream and the datagram engines: the
 * queue in front of the serializer (how many bytes wait, against its limit) and each packet's delay.
 */
import { queueLimitBytes, type LinkDirection } from './profile.ts';
import type { Random } from './random.ts';
import { ConstantRate, TraceRate, Unlimited, type Serializer } from './serializer.ts';
import { Fifo } from './queues.ts';
import type { Trace } from './trace.ts';

export class Bottleneck {
  readonly serializer: Serializer;
  /** Bytes the queue may hold (waiting or being serialized); undefined: no bottleneck, nothing queues. */
  readonly queueLimit: number | undefined;
  /** Packets not yet fully on the wire, in order, with when they will be. */
  private readonly onWire = new Fifo<{ doneAt: number; bytes: number }>();
  private waitingBytes = 0;

  constructor(
    private readonly direction: LinkDirection,
    private readonly jitterRandom: Random,
    /** When the link came up (a trace's time zero). */
    origin: number,
    /** The direction's trace, loaded by whoever reads files; replaces the rate. */
    trace?: Trace,
  ) {
    this.serializer = trace
      ? new TraceRate(trace, origin)
      : direction.rateBps !== undefined
        ? new ConstantRate(direction.rateBps)
        : new Unlimited();
    this.queueLimit = queueLimitBytes(direction, this.serializer.drainBps);
  }

  /** Bytes offered and not yet fully serialized at `now` (the queue's occupancy, the packet in service included). */
  backlog(now: number): number {
    for (let head = this.onWire.peek(); head && head.doneAt <= now; head = this.onWire.peek()) {
      this.waitingBytes -= head.bytes;
      this.onWire.shift();
    }
    return this.waitingBytes;
  }

  /** When the packet now being serialized is on the wire (the backlog shrinks then); undefined when idle. */
  nextDrainAt(now: number): number | undefined {
    this.backlog(now);
    return this.onWire.peek()?.doneAt;
  }

  /** Whether `bytes` more fit in the queue at `now`. */
  fits(now: number, bytes: number): boolean {
    return this.queueLimit === undefined || this.backlog(now) + bytes <= this.queueLimit;
  }

  /** Queues `bytes` at `now`; returns when they are on the wire. */
  enqueue(now: number, bytes: number): number {
    const doneAt = this.serializer.serialize(now, bytes);
    if (doneAt > now) {
      this.onWire.push({ doneAt, bytes });
      this.waitingBytes += bytes;
    }
    return doneAt;
  }

  /** One packet's propagation time: delay +- jitter, uniform. */
  propagation(): number {
    const { delayMs, jitterMs } = this.direction;
    return jitterMs > 0 ? delayMs + (2 * this.jitterRandom() - 1) * jitterMs : delayMs;
  }
}
