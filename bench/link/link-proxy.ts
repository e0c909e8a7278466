/**
 * User-space TCP proxy that puts a {@link LinkProfile} between a client and a server: each direction of each
 * connection is a {@link StreamLink} (bottleneck queue, serialization at the rate or a trace, delay +-
 * jitter without reordering), run in real time. Works without root, for any TCP transport (WebSocket, REST,
 * TLS passes through untouched).
 *
 * Backpressure instead of loss: when a direction's bottleneck queue is full (or a window's worth of bytes is
 * in flight), the proxy stops reading that side's socket, as a real TCP sender is held back by its
 * congestion and receive windows. A byte stream cannot lose a segment, so a profile with loss is refused
 * here (`streamLimitations`): TCP under loss needs the packet path (link/packet/).
 *
 * A user-space proxy cannot delay the kernel's SYN / SYN-ACK: the client's connect() completes at once. To
 * charge a new connection the round trip its handshake costs on a real link, the client's first bytes are
 * held until accept + (up delay + down delay) before their own trip starts (`emulateHandshake`, on by
 * default): a request on a fresh connection arrives one and a half round trips after connect(), as on a
 * real path. The client's measured connect time stays near zero; the cost shows in the first request.
 *
 * Not emulated: TCP slow start and congestion control's reaction to the emulated link (the loopback legs
 * have their own, on a path with no loss and microsecond round trips), ACK clocking, loss.
 */
import net from 'node:net';
import {
  Bottleneck,
  deriveSeed,
  DeliveryPump,
  freshSeed,
  realTimers,
  seededRandom,
  STREAM_END,
  streamLimitations,
  StreamLink,
  type LinkProfile,
  type LinkTimers,
  type StreamItem,
  type Trace,
} from '@sightline/shared/link';

export interface LinkProxyOptions {
  /** Where to forward connections. */
  targetHost: string;
  targetPort: number;
  profile: LinkProfile;
  /** Seed of every connection's jitter draws (each direction of each connection derives its own); fresh when absent. */
  seed?: number;
  /** Loaded traces for profiles that name trace files (see `loadTraces`). */
  traces?: { up?: Trace | undefined; down?: Trace | undefined };
  /** Hold a new connection's first client bytes one handshake round trip (default true). */
  emulateHandshake?: boolean;
  /**
   * One bottleneck per direction for all connections (one device's link, its flows queueing together), instead
   * of one per connection (default: each connection is its own device, so one client's traffic never slows another).
   */
  sharedBottleneck?: boolean;
  /** Bytes in flight per direction before the reader is paused (default: the engine's, 4 MiB). */
  windowBytes?: number;
  listenHost?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  timers?: LinkTimers;
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

/** One direction of one connection: reads `from` into the link, writes what the link delivers to `to`. */
class LinkedPipe {
  private readonly pump: DeliveryPump<StreamItem<Buffer>>;
  private retry: unknown;
  /** Bytes read from `from` that the link had no room for yet (the rest of a socket read). */
  private pending: Buffer | undefined;
  private ended = false;

  constructor(
    private readonly from: net.Socket,
    private readonly to: net.Socket,
    private readonly link: StreamLink<Buffer>,
    private readonly timers: LinkTimers,
  ) {
    this.pump = new DeliveryPump<StreamItem<Buffer>>(
      link,
      (item) => this.deliver(item),
      timers,
      () => this.maybeResume(),
    );
    from.on('data', (chunk: Buffer) => {
      this.pending = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
      this.feed();
    });
    from.on('end', () => {
      this.ended = true;
      this.feed();
    });
    to.on('drain', () => this.maybeResume());
  }

  private deliver(item: StreamItem<Buffer>): void {
    if (this.to.destroyed) return this.stop();
    if (item === STREAM_END) this.to.end();
    else if (!this.to.write(item)) this.from.pause();
  }

  /**
   * Hands the link as much of what was read as it has room for (the queue limit holds to a segment, not to
   * a 64 KB socket read), pausing the reader for the rest; passes the end of stream on after the last byte.
   */
  private feed(): void {
    const now = this.timers.now();
    while (this.pending) {
      const room = this.link.writableBytes(now);
      if (room <= 0) break;
      const piece = this.pending.length <= room ? this.pending : this.pending.subarray(0, room);
      this.pending = piece === this.pending ? undefined : this.pending.subarray(room);
      this.link.write(now, piece);
    }
    if (!this.pending && this.ended) {
      this.ended = false;
      this.link.end(now);
    }
    this.pump.poke();
    if (this.pending || !this.link.acceptsMore(now)) {
      this.from.pause();
      this.maybeResume();
    }
  }

  /** Reads again once the link has room and the far socket has drained what it was given. */
  private maybeResume(): void {
    if (!this.from.isPaused() || this.to.writableNeedDrain) return;
    const now = this.timers.now();
    const at = this.link.acceptsMoreAt(now);
    if (at <= now) {
      if (this.pending) return this.feed();
      return void this.from.resume();
    }
    // The window is full: the next delivery makes room, and the pump's afterBatch calls back then.
    if (at === Number.POSITIVE_INFINITY) return;
    // The queue is full: look again when it drains a packet (a shared one drains on other connections' time).
    if (this.retry === undefined) {
      this.retry = this.timers.setTimeout(
        () => {
          this.retry = undefined;
          this.maybeResume();
        },
        Math.max(1, Math.ceil(at - now)),
      );
    }
  }

  /** Bytes this direction holds (queued, serialized, propagating). */
  get heldBytes(): number {
    return this.link.heldBytes;
  }

  stop(): void {
    this.pump.stop();
    this.link.clear();
    this.pending = undefined;
    if (this.retry !== undefined) this.timers.clearTimeout(this.retry);
    this.retry = undefined;
  }
}

export class LinkProxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  private readonly pipes = new Set<LinkedPipe>();
  private readonly timers: LinkTimers;
  /** The seed every connection's draws derive from: printed by callers so a run can be replayed. */
  readonly seed: number;
  private readonly shared: { up: Bottleneck; down: Bottleneck } | undefined;
  /** Connections accepted so far. */
  accepted = 0;

  constructor(private readonly options: LinkProxyOptions) {
    const limits = streamLimitations(options.profile);
    if (limits.length) throw new Error(`the TCP link proxy cannot emulate ${limits.join('; ')}`);
    this.seed = options.seed ?? freshSeed();
    this.timers = options.timers ?? realTimers;
    if (options.sharedBottleneck) {
      const origin = this.timers.now();
      const { up, down } = options.profile;
      this.shared = {
        up: new Bottleneck(up, seededRandom(deriveSeed(this.seed, 1_000_000)), origin, options.traces?.up),
        down: new Bottleneck(down, seededRandom(deriveSeed(this.seed, 1_000_001)), origin, options.traces?.down),
      };
    }
  }

  /** Bytes held across every connection and direction: bounded by queue + window + one read per direction. */
  get heldBytes(): number {
    let sum = 0;
    for (const p of this.pipes) sum += p.heldBytes;
    return sum;
  }

  get profile(): LinkProfile {
    return this.options.profile;
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
    const index = this.accepted++;
    const now = this.timers.now();
    const { profile, traces } = this.options;
    const upstream = net.connect({ host: this.options.targetHost, port: this.options.targetPort, allowHalfOpen: true, noDelay: true });
    client.setNoDelay(true);
    this.sockets.add(client);
    this.sockets.add(upstream);
    const handshake = this.options.emulateHandshake !== false ? now + profile.up.delayMs + profile.down.delayMs : undefined;
    const common = { origin: now, windowBytes: this.options.windowBytes };
    const upLink = new StreamLink<Buffer>(profile.up, {
      ...common,
      seed: deriveSeed(this.seed, 2 * index),
      trace: traces?.up,
      holdUntil: handshake,
      bottleneck: this.shared?.up,
    });
    const downLink = new StreamLink<Buffer>(profile.down, {
      ...common,
      seed: deriveSeed(this.seed, 2 * index + 1),
      trace: traces?.down,
      bottleneck: this.shared?.down,
    });
    const up = new LinkedPipe(client, upstream, upLink, this.timers);
    const down = new LinkedPipe(upstream, client, downLink, this.timers);
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
    // An error on one side is a reset for the other: no orderly FIN, held data is discarded.
    const onError = (other: net.Socket) => () => {
      up.stop();
      down.stop();
      reset(other);
    };
    client.on('error', onError(upstream));
    upstream.on('error', onError(client));
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
export async function startLinkProxyFor(
  baseUrl: string,
  options: Omit<LinkProxyOptions, 'targetHost' | 'targetPort'>,
): Promise<{ url: string; proxy: LinkProxy }> {
  const target = new URL(baseUrl);
  const defaultPort = target.protocol === 'https:' ? 443 : 80;
  const proxy = new LinkProxy({
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
