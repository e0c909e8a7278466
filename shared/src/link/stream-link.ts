/**
 * One direction of an emulated link for a byte stream (a TCP connection relayed by a proxy, a WebSocket's
 * bytes): pure, driven by the times it is given, so a fake clock replays it exactly.
 *
 * Bytes are cut into segments (about 1 ms of the rate each, whole TCP segments), charged their TCP/IP
 * headers on the wire (a 10 Mbit/s link carries ~9.65 Mbit/s of payload, as a real one does), queued
 * behind the bottleneck, serialized, and delivered one propagation delay later, jitter included, but never
 * before the bytes ahead of them: a byte stream is not reordered, so a late segment holds up those behind
 * it (head-of-line blocking, as TCP's receiver does).
 *
 * What a stream cannot do: lose bytes. Where a packet path would drop a segment when the queue is full,
 * the stream tells its writer to stop ({@link StreamLink.acceptsMore} false: pause the socket), which is
 * TCP's backpressure; the sender's own buffers then fill, as a real sender's would. Loss in the profile is
 * ignored here (see `streamLimitations`).
 *
 * Memory: at most the queue limit plus `windowBytes` in flight (serialized, still propagating; TCP's
 * window does the same on a real path) when the writer hands over no more than {@link StreamLink.writableBytes};
 * a writer that hands over whole chunks regardless overshoots by one chunk.
 */
import { Bottleneck } from './bottleneck.ts';
import type { LinkDirection } from './profile.ts';
import { Fifo } from './queues.ts';
import { deriveSeed, seededRandom } from './random.ts';
import type { Trace } from './trace.ts';

/** TCP payload per segment on a 1500-byte MTU with timestamps (1500 - 20 IP - 32 TCP). */
export const TCP_MSS = 1448;
/** IPv4 + TCP headers with the timestamp option. */
export const TCP_HEADER_BYTES = 52;
/** Default bytes in flight per direction: Linux's default largest receive window is about this (tcp_rmem). */
export const DEFAULT_WINDOW_BYTES = 4 * 1024 * 1024;
/** Segments handed to the socket at once at most (~64 KB: a socket read's worth). */
const MAX_PIECE_SEGMENTS = 44;

export const STREAM_END: unique symbol = Symbol('end of stream');
export type StreamItem<C> = C | typeof STREAM_END;

export interface StreamLinkOptions {
  /** Seed of the jitter samples. */
  seed: number;
  /** When the link came up (time zero of a trace). */
  origin?: number;
  trace?: Trace;
  /** Nothing is serialized before this time (a new connection's handshake round trip, see the proxy). */
  holdUntil?: number;
  windowBytes?: number;
  /**
   * A bottleneck shared with other streams (several connections of one device behind one link: they queue
   * for it together, first come first served). Default: this stream's own, made from the direction.
   */
  bottleneck?: Bottleneck;
}

/** Wire bytes of `payload` bytes of a stream: each segment carries its headers. */
export function streamWireBytes(payload: number): number {
  return payload + Math.ceil(payload / TCP_MSS) * TCP_HEADER_BYTES;
}

export class StreamLink<C extends Uint8Array = Uint8Array> {
  private readonly bottleneck: Bottleneck;
  private readonly deliveries = new Fifo<{ at: number; item: StreamItem<C>; bytes: number }>();
  private readonly pieceBytes: number;
  private readonly holdUntil: number;
  private readonly windowBytes: number;
  private lastAt = Number.NEGATIVE_INFINITY;
  /** When this stream's last queued byte is on the wire. */
  private ownOnWireAt = Number.NEGATIVE_INFINITY;
  private held = 0;
  private ended = false;

  constructor(direction: LinkDirection, options: StreamLinkOptions) {
    this.bottleneck =
      options.bottleneck ?? new Bottleneck(direction, seededRandom(deriveSeed(options.seed, 0)), options.origin ?? 0, options.trace);
    this.holdUntil = options.holdUntil ?? Number.NEGATIVE_INFINITY;
    this.windowBytes = options.windowBytes ?? DEFAULT_WINDOW_BYTES;
    const bps = this.bottleneck.serializer.drainBps;
    // About 1 ms of the rate per piece keeps pacing smooth without a timer per segment at high rates.
    const segments = bps === undefined ? Number.POSITIVE_INFINITY : Math.floor(bps / 8000 / TCP_MSS);
    this.pieceBytes = Math.min(MAX_PIECE_SEGMENTS, Math.max(1, segments)) * TCP_MSS;
  }

  /** The queue's limit in bytes (undefined without a bottleneck). */
  get queueLimit(): number | undefined {
    return this.bottleneck.queueLimit;
  }

  /** Bytes accepted and not yet taken by {@link takeDue}. */
  get heldBytes(): number {
    return this.held;
  }

  /** Hands `chunk` to the link at `now`. Always accepted: see {@link writableBytes} for how much fits. */
  write(now: number, chunk: C): void {
    if (this.ended) throw new Error('write after end');
    const bounded = this.bottleneck.serializer.drainBps !== undefined;
    const step = bounded ? this.pieceBytes : chunk.byteLength;
    for (let offset = 0; offset < chunk.byteLength; offset += step) {
      const piece = (offset === 0 && step >= chunk.byteLength ? chunk : chunk.subarray(offset, offset + step)) as C;
      const start = Math.max(now, this.holdUntil);
      const onWireAt = this.bottleneck.enqueue(start, streamWireBytes(piece.byteLength));
      this.ownOnWireAt = onWireAt;
      this.schedule(onWireAt + this.bottleneck.propagation(), piece, piece.byteLength);
    }
  }

  /** The writer's end of stream (FIN): delivered after every byte before it. */
  end(now: number): void {
    if (this.ended) return;
    this.ended = true;
    const start = Math.max(now, this.holdUntil, this.bottleneck.serializer.idleAt);
    this.schedule(start + this.bottleneck.propagation(), STREAM_END, 0);
  }

  private schedule(at: number, item: StreamItem<C>, bytes: number): void {
    this.lastAt = Math.max(this.lastAt, at);
    this.deliveries.push({ at: this.lastAt, item, bytes });
    this.held += bytes;
  }

  /**
   * How many bytes the writer may hand over at `now`: what the bottleneck queue has room for and what the
   * window leaves (0: pause). A stream with nothing of its own in a full shared queue may still add one
   * segment's worth, so a quiet connection's request waits behind a bulk one's bytes (as its packet would in
   * a FIFO) rather than behind its pauses.
   */
  writableBytes(now: number): number {
    const backlog = this.bottleneck.backlog(now);
    const ownBacklog = this.ownOnWireAt > now;
    const limit = this.bottleneck.queueLimit;
    let room = Number.POSITIVE_INFINITY;
    if (limit !== undefined) room = ownBacklog ? limit - backlog : Math.max(limit - backlog, this.pieceBytes);
    const inFlight = Math.max(0, this.held - (ownBacklog ? backlog : 0));
    return Math.max(0, Math.floor(Math.min(room, this.windowBytes - inFlight)));
  }

  /** False when the writer should pause: the bottleneck queue is full, or a window's worth is in flight. */
  acceptsMore(now: number): boolean {
    return this.writableBytes(now) > 0;
  }

  /**
   * When {@link acceptsMore} may turn true again, for a writer that was paused: `now` if it already is; when
   * the queue next puts a packet on the wire, if the queue is what is full (a shared queue drains on other
   * streams' schedules, so the writer must look again then, not only after its own deliveries); infinity
   * when only the window is full (its own next delivery makes room).
   */
  acceptsMoreAt(now: number): number {
    if (this.acceptsMore(now)) return now;
    const queueFull = this.bottleneck.queueLimit !== undefined && this.bottleneck.backlog(now) >= this.bottleneck.queueLimit;
    return (queueFull ? this.bottleneck.nextDrainAt(now) : undefined) ?? Number.POSITIVE_INFINITY;
  }

  /** Bytes waiting for the bottleneck at `now` (the queue's occupancy). */
  backlogBytes(now: number): number {
    return this.bottleneck.backlog(now);
  }

  /** When the next delivery is due; undefined when nothing is held. */
  nextDueAt(): number | undefined {
    return this.deliveries.peek()?.at;
  }

  /** Everything due by `now`, in stream order. */
  takeDue(now: number): Array<StreamItem<C>> {
    const due: Array<StreamItem<C>> = [];
    for (let head = this.deliveries.peek(); head && head.at <= now; head = this.deliveries.peek()) {
      this.deliveries.shift();
      this.held -= head.bytes;
      due.push(head.item);
    }
    return due;
  }

  /** Drops everything held (the connection was reset). */
  clear(): void {
    this.deliveries.clear();
    this.held = 0;
  }
}
