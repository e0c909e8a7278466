/**
 * User-space TCP proxy that adds a one-way delay in each direction (tc netem is not available here).
 *
 * Every chunk read from one side is delivered to the other at arrival + delay (or, with a bandwidth cap, at
 * the time its last byte would have been serialised at the capped rate, + delay), in order. A half-close
 * (FIN) travels the same way, after the data before it; an error or reset on one side resets the other.
 *
 * A user-space proxy cannot delay the kernel's SYN / SYN-ACK: the client's connect() completes at once. To
 * charge a new connection the round trip its handshake would cost on a real link, the first bytes from the
 * client are held until accept + 2 x delay before their own delay starts (`emulateHandshake`, on by default),
 * so a request on a fresh connection arrives 3 x delay after connect() like on a real path. The client's
 * measured connect time stays near zero; the cost shows in the first request's latency instead.
 *
 * Not emulated: TCP slow start, loss, and ACK clocking (a large message is not slowed by the congestion
 * window as on a real long path).
 */
import net from 'node:net';

export interface DelayProxyOptions {
  /** Where to forward connections. */
  targetHost: string;
  targetPort: number;
  /** One-way delay in ms added in each direction. */
  delayMs: number;
  /** Optional cap per direction in kilobits per second (1 kbit = 1000 bits). */
  bandwidthKbps?: number | undefined;
  /** Hold a new connection's first client bytes one handshake round trip (default true). */
  emulateHandshake?: boolean;
  listenHost?: string;
  /** 0 (default) picks a free port. */
  port?: number;
}

/** Closes with a TCP RST (what a broken path looks like to the peer), not an orderly FIN. */
function reset(socket: net.Socket): void {
  if (socket.destroyed) return;
  try {
    socket.resetAndDestroy();
  } catch {
    socket.destroy();
  }
}

interface Delivery {
  at: number;
  chunk?: Buffer;
  end?: true;
}

/** Largest piece scheduled at once when a bandwidth cap is set, so pacing is smooth. */
const PACE_CHUNK = 16 * 1024;

/**
 * When bytes sent one way over the emulated link reach the far side: once the link has serialised them at
 * its capped rate (if any), plus the one-way delay; never before bytes sent earlier, and not before
 * `holdUntil`. Pure arithmetic on the times it is given.
 */
export class LinkSchedule {
  /** When the capped link is free to start serialising the next byte. */
  private linkFreeAt = 0;
  private lastAt = 0;

  constructor(
    private readonly delayMs: number,
    /** Bytes per ms, or 0 for no cap. */
    private readonly bytesPerMs: number,
    /** Nothing is sent before this time. */
    private readonly holdUntil = 0,
  ) {}

  /** A bandwidth cap is set: large chunks are paced in pieces. */
  get capped(): boolean {
    return this.bytesPerMs > 0;
  }

  /** Neither delay nor cap: bytes go through as they come. */
  get immediate(): boolean {
    return this.delayMs === 0 && this.bytesPerMs === 0;
  }

  /** Time the last of `bytes` bytes arriving at `arrivedAt` reaches the far side. */
  departure(arrivedAt: number, bytes: number): number {
    const now = Math.max(arrivedAt, this.holdUntil);
    let sentAt = now;
    if (this.bytesPerMs > 0) {
      sentAt = Math.max(now, this.linkFreeAt) + bytes / this.bytesPerMs;
      this.linkFreeAt = sentAt;
    }
    // Never before an earlier chunk: order is preserved even if the clock's resolution ties them.
    this.lastAt = Math.max(this.lastAt, sentAt + this.delayMs);
    return this.lastAt;
  }
}

/**
 * Until when a connection accepted at `acceptedAt` holds the client's first bytes: the round trip its
 * SYN / SYN-ACK would have cost (0, not at all, without handshake emulation).
 */
export function handshakeHold(acceptedAt: number, delayMs: number, emulateHandshake: boolean): number {
  return emulateHandshake ? acceptedAt + 2 * delayMs : 0;
}

/** One direction of one connection: reads `from`, writes `to` when the link's schedule says. */
class DelayedPipe {
  private readonly queue: Delivery[] = [];
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly from: net.Socket,
    private readonly to: net.Socket,
    private readonly link: LinkSchedule,
  ) {
    from.on('data', (chunk: Buffer) => this.onData(chunk));
    from.on('end', () => this.push({ at: this.departure(0), end: true }));
    to.on('drain', () => from.resume());
  }

  private departure(bytes: number): number {
    return this.link.departure(performance.now(), bytes);
  }

  private onData(chunk: Buffer): void {
    if (this.link.capped && chunk.length > PACE_CHUNK) {
      for (let offset = 0; offset < chunk.length; offset += PACE_CHUNK) {
        const piece = chunk.subarray(offset, offset + PACE_CHUNK);
        this.push({ at: this.departure(piece.length), chunk: piece });
      }
    } else {
      this.push({ at: this.departure(chunk.length), chunk });
    }
  }

  private push(delivery: Delivery): void {
    if (this.stopped) return;
    this.queue.push(delivery);
    if (this.link.immediate && delivery.at <= performance.now()) this.deliver();
    else if (!this.timer) this.schedule();
  }

  private schedule(): void {
    const head = this.queue[0];
    if (!head || this.stopped) return;
    // Timers may fire a little early (loop time is cached); deliver() re-checks and reschedules.
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.deliver();
      },
      Math.max(0, Math.ceil(head.at - performance.now())),
    );
  }

  private deliver(): void {
    const now = performance.now();
    while (this.queue.length && this.queue[0]!.at <= now) {
      const next = this.queue.shift()!;
      if (this.to.destroyed) {
        this.stop();
        return;
      }
      if (next.end) this.to.end();
      else if (!this.to.write(next.chunk!)) this.from.pause();
    }
    if (this.queue.length && !this.timer) this.schedule();
  }

  stop(): void {
    this.stopped = true;
    this.queue.length = 0;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

export class DelayProxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  private readonly pipes = new Set<DelayedPipe>();
  /** Connections accepted so far. */
  accepted = 0;

  constructor(private readonly options: DelayProxyOptions) {
    if (!(options.delayMs >= 0)) throw new Error('delayMs must be >= 0');
    if (options.bandwidthKbps !== undefined && !(options.bandwidthKbps > 0)) throw new Error('bandwidthKbps must be > 0');
  }

  get delayMs(): number {
    return this.options.delayMs;
  }

  start(): Promise<{ port: number }> {
    const server = net.createServer({ allowHalfOpen: true, noDelay: true }, (client) => this.onConnection(client));
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port ?? 0, this.options.listenHost ?? '127.0.0.1', () => {
        server.off('error', reject);
        resolve({ port: (server.address() as net.AddressInfo).port });
      });
    });
  }

  private onConnection(client: net.Socket): void {
    this.accepted++;
    const acceptedAt = performance.now();
    const { delayMs } = this.options;
    const bytesPerMs = this.options.bandwidthKbps ? (this.options.bandwidthKbps * 1000) / 8 / 1000 : 0;
    const upstream = net.connect({ host: this.options.targetHost, port: this.options.targetPort, allowHalfOpen: true, noDelay: true });
    client.setNoDelay(true);
    this.sockets.add(client);
    this.sockets.add(upstream);
    const hold = handshakeHold(acceptedAt, delayMs, this.options.emulateHandshake !== false);
    const up = new DelayedPipe(client, upstream, new LinkSchedule(delayMs, bytesPerMs, hold));
    const down = new DelayedPipe(upstream, client, new LinkSchedule(delayMs, bytesPerMs));
    this.pipes.add(up);
    this.pipes.add(down);
    let closed = 0;
    const onClose = (socket: net.Socket) => () => {
      this.sockets.delete(socket);
      if (++closed === 2) {
        up.stop();
        down.stop();
        this.pipes.delete(up);
        this.pipes.delete(down);
      }
    };
    // An error on one side is a reset for the other: no orderly FIN, queued data is discarded.
    const onError = (other: net.Socket, pipes: DelayedPipe[]) => () => {
      for (const p of pipes) p.stop();
      reset(other);
    };
    client.on('error', onError(upstream, [up, down]));
    upstream.on('error', onError(client, [up, down]));
    client.on('close', onClose(client));
    upstream.on('close', onClose(upstream));
  }

  /** Stops listening and resets every open connection. */
  close(): Promise<void> {
    for (const p of this.pipes) p.stop();
    this.pipes.clear();
    for (const s of this.sockets) reset(s);
    this.sockets.clear();
    const server = this.server;
    this.server = undefined;
    if (!server) return Promise.resolve();
    return new Promise((resolve) => server.close(() => resolve()));
  }
}

/** Starts a proxy in front of `baseUrl` and returns the URL to use instead, with the proxy to close later. */
export async function startDelayProxyFor(
  baseUrl: string,
  options: Omit<DelayProxyOptions, 'targetHost' | 'targetPort'>,
): Promise<{ url: string; proxy: DelayProxy }> {
  const target = new URL(baseUrl);
  const defaultPort = target.protocol === 'https:' ? 443 : 80;
  const proxy = new DelayProxy({
    ...options,
    targetHost: target.hostname.replace(/^\[|\]$/g, ''),
    targetPort: target.port ? Number(target.port) : defaultPort,
  });
  const { port } = await proxy.start();
  const proxied = new URL(baseUrl);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(port);
  return { url: proxied.origin + proxied.pathname.replace(/\/+$/, ''), proxy };
}
