/**
 * A bound on the bytes the gateway holds of messages still arriving, across every connection: ws buffers a
 * whole message before handing it over, and an HTTP body is read whole too, so 64 connections each sending
 * one 10 MB frame held ~600 MB at once (measured; docs/RELIABILITY.md). Past the budget the gateway stops
 * reading the sockets of the messages in progress, except the one nearest completion, and TCP makes those
 * senders wait: nothing is refused or lost, a message is only read later. An HTTP body waits for room before
 * it is read at all.
 */
import type { Duplex } from 'node:stream';

/** What the budget needs of a WebSocket: stop and restart reading its socket (ws's pause/resume). */
export interface PausableConnection {
  pause(): void;
  resume(): void;
}

export class ReceiveBudget {
  private used = 0;
  /** Bytes of the message arriving on each connection (since its last complete message). */
  private readonly arriving = new Map<PausableConnection, number>();
  private readonly paused = new Set<PausableConnection>();
  private readonly waiting: { bytes: number; go: () => void }[] = [];

  constructor(readonly limitBytes: number) {}

  /** Bytes held now of messages and bodies in progress. */
  get bytes(): number {
    return this.used;
  }

  /** Whether this connection's reading is held back (its pongs too: the heartbeat spares it). */
  isPaused(connection: PausableConnection): boolean {
    return this.paused.has(connection);
  }

  /** Counts what arrives on `socket` toward `connection`'s message in progress. */
  watch(connection: PausableConnection, socket: Duplex): void {
    socket.on('data', (chunk: Buffer) => this.received(connection, chunk.byteLength));
  }

  /** A message of `connection` is complete (ws handed it over): its bytes are the application's now. */
  completed(connection: PausableConnection): void {
    this.settle(connection, 0);
  }

  /** The connection is gone. */
  forget(connection: PausableConnection): void {
    this.settle(connection, undefined);
  }

  /** Room for an HTTP body of `bytes` (waits while the budget is spent); call the returned function when done with it. */
  async reserve(bytes: number): Promise<() => void> {
    const wanted = Math.min(bytes, this.limitBytes);
    if (this.waiting.length > 0 || this.used + wanted > this.limitBytes) {
      await new Promise<void>((go) => this.waiting.push({ bytes: wanted, go }));
    } else {
      this.used += wanted;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used -= wanted;
      this.relieve();
    };
  }

  private received(connection: PausableConnection, bytes: number): void {
    this.arriving.set(connection, (this.arriving.get(connection) ?? 0) + bytes);
    this.used += bytes;
    if (this.used > this.limitBytes) this.holdBack();
  }

  private settle(connection: PausableConnection, keep: number | undefined): void {
    this.used -= this.arriving.get(connection) ?? 0;
    if (keep === undefined) {
      this.arriving.delete(connection);
      this.paused.delete(connection);
    } else {
      this.arriving.set(connection, keep);
    }
    this.relieve();
  }

  /** Over budget: every message in progress waits but the one nearest completion, so one always moves. */
  private holdBack(): void {
    let leader: PausableConnection | undefined;
    for (const [connection, bytes] of this.arriving) {
      if (bytes > 0 && (!leader || bytes > this.arriving.get(leader)!)) leader = connection;
    }
    for (const [connection, bytes] of this.arriving) {
      if (connection === leader || bytes === 0 || this.paused.has(connection)) continue;
      this.paused.add(connection);
      connection.pause();
    }
  }

  /** Within budget again: HTTP bodies waiting get their room, paused connections read again. */
  private relieve(): void {
    while (this.waiting.length > 0 && this.used + this.waiting[0]!.bytes <= this.limitBytes) {
      const next = this.waiting.shift()!;
      this.used += next.bytes;
      next.go();
    }
    if (this.used > this.limitBytes) return;
    for (const connection of this.paused) connection.resume();
    this.paused.clear();
  }
}

/** Express middleware: a request body is read only once the budget has room for its declared length. */
export function reserveBody(budget: ReceiveBudget, maxBodyBytes: number) {
  return (
    request: { headers: Record<string, string | string[] | undefined> },
    response: { once(event: 'close', listener: () => void): unknown },
    next: () => void,
  ): void => {
    const declared = Number(request.headers['content-length']);
    const bytes = Number.isFinite(declared) && declared > 0 ? Math.min(declared, maxBodyBytes) : maxBodyBytes;
    void budget.reserve(bytes).then((release) => {
      response.once('close', release);
      next();
    });
  };
}
