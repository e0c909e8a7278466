/**
 * One direction of an emulated link for datagrams (UDP packets, IP packets from a TUN device, whole
 * messages): pure, driven by the times it is given. Per packet, in order: the bottleneck queue (tail drop
 * when full), serialization, loss on the wire (random or Gilbert-Elliott; a lost packet has used its
 * airtime), and propagation delay +- jitter, per packet, so jitter larger than the packets' spacing
 * reorders them (as on a real path with parallel routes or link-layer retransmission), unless
 * `preserveOrder`.
 *
 * Memory: bounded by `maxHeldBytes` (packets past it are dropped and counted apart), whatever the link.
 */
import { Bottleneck } from './bottleneck.ts';
import { createLossProcess, type LossProcess } from './loss.ts';
import type { LinkDirection } from './profile.ts';
import { TimeHeap } from './queues.ts';
import { deriveSeed, seededRandom } from './random.ts';
import type { Trace } from './trace.ts';

export const DEFAULT_MAX_HELD_BYTES = 8 * 1024 * 1024;

/** What became of a packet handed to the link. */
export type DatagramFate = 'sent' | 'lost' | 'queue-full' | 'over-memory';

export interface DatagramLinkOptions {
  /** Seed of the jitter and loss draws (independent streams). */
  seed: number;
  origin?: number;
  trace?: Trace;
  maxHeldBytes?: number;
  /** Deliver in sending order even when jitter would reorder (a FIFO link). Default false. */
  preserveOrder?: boolean;
}

export interface DatagramCounters {
  offered: number;
  /** Put on the wire (offered minus queue and memory drops). */
  onWire: number;
  lost: number;
  queueDrops: number;
  memoryDrops: number;
  delivered: number;
}

export class DatagramLink<P> {
  private readonly bottleneck: Bottleneck;
  private readonly loss: LossProcess;
  private readonly deliveries = new TimeHeap<{ packet: P; bytes: number }>();
  private readonly maxHeldBytes: number;
  private readonly preserveOrder: boolean;
  private lastAt = Number.NEGATIVE_INFINITY;
  private held = 0;
  readonly counters: DatagramCounters = { offered: 0, onWire: 0, lost: 0, queueDrops: 0, memoryDrops: 0, delivered: 0 };

  constructor(direction: LinkDirection, options: DatagramLinkOptions) {
    this.bottleneck = new Bottleneck(direction, seededRandom(deriveSeed(options.seed, 0)), options.origin ?? 0, options.trace);
    this.loss = createLossProcess(direction.loss, seededRandom(deriveSeed(options.seed, 1)));
    this.maxHeldBytes = options.maxHeldBytes ?? DEFAULT_MAX_HELD_BYTES;
    this.preserveOrder = options.preserveOrder === true;
  }

  get queueLimit(): number | undefined {
    return this.bottleneck.queueLimit;
  }

  get heldBytes(): number {
    return this.held;
  }

  /** Hands a packet of `wireBytes` (its size on the wire, headers included) to the link at `now`. */
  send(now: number, packet: P, wireBytes: number): DatagramFate {
    this.counters.offered++;
    if (this.held + wireBytes > this.maxHeldBytes) {
      this.counters.memoryDrops++;
      return 'over-memory';
    }
    if (!this.bottleneck.fits(now, wireBytes)) {
      this.counters.queueDrops++;
      return 'queue-full';
    }
    const onWireAt = this.bottleneck.enqueue(now, wireBytes);
    this.counters.onWire++;
    if (this.loss.lose()) {
      this.counters.lost++;
      return 'lost';
    }
    let at = onWireAt + this.bottleneck.propagation();
    if (this.preserveOrder) at = this.lastAt = Math.max(this.lastAt, at);
    this.deliveries.push(at, { packet, bytes: wireBytes });
    this.held += wireBytes;
    return 'sent';
  }

  backlogBytes(now: number): number {
    return this.bottleneck.backlog(now);
  }

  nextDueAt(): number | undefined {
    return this.deliveries.peekAt();
  }

  /** Packets due by `now`, in arrival order. */
  takeDue(now: number): P[] {
    const due: P[] = [];
    for (let at = this.deliveries.peekAt(); at !== undefined && at <= now; at = this.deliveries.peekAt()) {
      const { packet, bytes } = this.deliveries.pop()!;
      this.held -= bytes;
      this.counters.delivered++;
      due.push(packet);
    }
    return due;
  }

  clear(): void {
    this.deliveries.clear();
    this.held = 0;
  }
}
