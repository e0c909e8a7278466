/**
 * One connection behind an emulated link, inside the gateway: each message the client sent crosses the
 * uplink (serialized at its rate behind the bottleneck queue, then the one-way delay and jitter) before the
 * session reads it, and each reply crosses the downlink before it is written to the socket. The engine is
 * the link lab's byte stream (`@sightline/shared/link` StreamLink), so what a WebSocket emulates here is what
 * the benchmark's TCP link proxy emulates: rate, queue (bufferbloat), delay and jitter, never loss (a byte
 * stream cannot lose a segment: TCP would resend it).
 *
 * The bytes arrived over the real path already (loopback, usually); the link only holds them for the time they
 * would have taken. When the uplink's queue is full the socket stops being read, so TCP makes the client wait
 * as a full bottleneck would; a connection holds at most the queue's bytes and one message beyond it.
 */
import { DeliveryPump, freshSeed, STREAM_END, StreamLink, type LinkProfile } from '@sightline/shared/link';

export interface ConnectionLinkHooks {
  /** A message has crossed the uplink: the session reads it now. */
  deliver(data: Uint8Array, isBinary: boolean): void;
  /** A reply has crossed the downlink: write it to the socket. */
  write(data: string | Uint8Array, binary: boolean): void;
  /** Everything sent before the close has crossed the downlink: close now. */
  closed(): void;
  /** Stop and restart reading the socket (the uplink's queue is full, then has room again). */
  pauseReading(): void;
  resumeReading(): void;
}

interface Message<T> {
  message: T;
  bytes: number;
}

/** Messages on one direction of the link: whole messages in, the same whole messages out when their last byte is through. */
class MessageDirection<T> {
  private readonly link: StreamLink;
  private readonly pending: Message<T>[] = [];
  private deliveredBytes = 0;
  private readonly pump: DeliveryPump<Uint8Array | typeof STREAM_END>;
  private endDelivered: (() => void) | undefined;

  constructor(direction: LinkProfile['up'], seed: number, deliver: (message: T) => void, afterBatch: () => void) {
    this.link = new StreamLink(direction, { seed });
    this.pump = new DeliveryPump<Uint8Array | typeof STREAM_END>(
      this.link,
      (piece) => {
        if (piece === STREAM_END) {
          this.endDelivered?.();
          return;
        }
        this.deliveredBytes += piece.byteLength;
        while (this.pending.length > 0 && this.deliveredBytes >= this.pending[0]!.bytes) {
          const { message, bytes } = this.pending.shift()!;
          this.deliveredBytes -= bytes;
          deliver(message);
        }
      },
      undefined,
      afterBatch,
    );
  }

  /** Bytes held: written and not yet through. */
  get heldBytes(): number {
    return this.link.heldBytes;
  }

  get acceptsMore(): boolean {
    return this.link.acceptsMore(performance.now());
  }

  send(message: T, bytes: Uint8Array): void {
    this.pending.push({ message, bytes: bytes.byteLength });
    this.link.write(performance.now(), bytes);
    this.pump.poke();
  }

  /** Calls `then` once everything written before it is through. */
  end(then: () => void): void {
    this.endDelivered = then;
    this.link.end(performance.now());
    this.pump.poke();
  }

  stop(): void {
    this.pump.stop();
    this.link.clear();
    this.pending.length = 0;
  }
}

const encoder = new TextEncoder();

export class ConnectionLink {
  private readonly up: MessageDirection<{ data: Uint8Array; isBinary: boolean }>;
  private readonly down: MessageDirection<{ data: string | Uint8Array; binary: boolean }>;
  private readingPaused = false;
  private closing = false;

  constructor(
    readonly profile: LinkProfile,
    private readonly hooks: ConnectionLinkHooks,
    seed = freshSeed(),
  ) {
    this.up = new MessageDirection(
      profile.up,
      seed,
      ({ data, isBinary }) => hooks.deliver(data, isBinary),
      () => this.maybeResume(),
    );
    this.down = new MessageDirection(
      profile.down,
      seed + 1,
      ({ data, binary }) => hooks.write(data, binary),
      () => undefined,
    );
  }

  /** Bytes of messages and replies held by the link now. */
  get heldBytes(): number {
    return this.up.heldBytes + this.down.heldBytes;
  }

  /** Bytes of replies not yet through the downlink (they count as waiting to be sent). */
  get downlinkBytes(): number {
    return this.down.heldBytes;
  }

  /** A whole message arrived from the client. */
  received(data: Uint8Array, isBinary: boolean): void {
    if (this.closing) return;
    this.up.send({ data, isBinary }, data);
    if (!this.readingPaused && !this.up.acceptsMore) {
      this.readingPaused = true;
      this.hooks.pauseReading();
    }
  }

  /** A reply for the client. */
  send(data: string | Uint8Array, binary: boolean): void {
    if (this.closing) return;
    this.down.send({ data, binary }, typeof data === 'string' ? encoder.encode(data) : data);
  }

  /** Closes once every reply sent before has crossed the downlink. */
  close(): void {
    if (this.closing) return;
    this.closing = true;
    this.down.end(() => this.hooks.closed());
  }

  /** The connection is gone: nothing more is delivered. */
  stop(): void {
    this.closing = true;
    this.up.stop();
    this.down.stop();
  }

  private maybeResume(): void {
    if (this.readingPaused && this.up.acceptsMore) {
      this.readingPaused = false;
      this.hooks.resumeReading();
    }
  }
}
