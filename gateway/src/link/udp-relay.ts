/**
 * The link lab's UDP path without root: a user-space relay between a WebRTC client and one server candidate,
 * each direction a {@link DatagramLink} (queue, rate, loss, delay +- jitter) run in real time. With BUNDLE
 * and rtcp-mux a peer connection is one UDP flow, so one relay per server candidate carries all of it (ICE
 * checks, DTLS, SCTP, RTP and RTCP alike). sdp-candidates.ts makes the peers use it: the client is given the
 * relay's address for the server's, and the server is not told the client's, so it answers the checks that
 * reach it through the relay and learns the client as the relay's address (peer-reflexive).
 *
 *   client --> relay.port (client side) ==up link==> a socket per client address --> server candidate
 *   client <-- relay.port <==down link== that socket <-- server
 *
 * Two users: the gateway puts a WHIP peer behind the link its `?link=` names (webrtc/session-manager.ts), and
 * the benchmark puts a WebRTC server (the gateway's or the Python peer's) behind a link without root.
 *
 * What it does not emulate: the kernel's path (the packets cross loopback twice, through this process's
 * event loop, which also times the deliveries: under load they are late, never early); the WHIP request
 * (TCP, not carried here); anything but the one flow. Wire sizes count 28 bytes of IPv4 + UDP header per
 * datagram, as the packet path's link sees them. Memory is the link's queue (bounded by its profile) and
 * one socket per client address, at most MAX_CLIENT_FLOWS.
 */
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import {
  DatagramLink,
  deriveSeed,
  DeliveryPump,
  freshSeed,
  isTransparent,
  realTimers,
  type DatagramCounters,
  type LinkProfile,
} from '@sightline/shared/link';

/** IPv4 (20) + UDP (8) header bytes of each datagram on the emulated wire. */
export const UDP_IP_HEADER_BYTES = 28;

export interface UdpRelayOptions {
  target: { address: string; port: number };
  profile: LinkProfile;
  seed?: number;
  /** Where the client side listens (default 127.0.0.1). */
  listenAddress?: string;
  /** Let jitter reorder datagrams (default false: one queueing path keeps order, as the packet path does). */
  reorder?: boolean;
  /** Ports the client side may listen on (a range a firewall or a container exposes); default: any. */
  portRange?: { min: number; max: number };
}

/** Client addresses one relay forwards for: a WebRTC peer uses one; each more is a socket held. */
export const MAX_CLIENT_FLOWS = 4;

interface Datagram {
  payload: Buffer;
  /** The client address it came from (up) or goes to (down), "address:port". */
  client: string;
}

function bind(socket: Socket, address: string, port = 0): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(port, address, () => {
      socket.off('error', reject);
      resolve();
    });
  });
}

/** A socket on a free port of the range (from a random start, each port tried once), or any port without one. */
async function bindInRange(address: string, range: { min: number; max: number } | undefined): Promise<Socket> {
  if (!range) {
    const socket = createSocket('udp4');
    await bind(socket, address);
    return socket;
  }
  const size = range.max - range.min + 1;
  const start = Math.floor(Math.random() * size);
  for (let i = 0; i < size; i += 1) {
    const socket = createSocket('udp4');
    try {
      await bind(socket, address, range.min + ((start + i) % size));
      return socket;
    } catch {
      socket.close();
    }
  }
  throw new Error(`no free UDP port in ${range.min}-${range.max} for the link relay`);
}

export class UdpRelay {
  private readonly serverSockets = new Map<string, Socket>();
  private readonly pumps: Array<DeliveryPump<Datagram>> = [];
  private readonly links: { up: DatagramLink<Datagram>; down: DatagramLink<Datagram> } | undefined;
  private closed = false;

  private constructor(
    private readonly clientSocket: Socket,
    private readonly options: UdpRelayOptions,
    readonly seed: number,
  ) {
    const { profile } = options;
    if (!(isTransparent(profile.up) && isTransparent(profile.down))) {
      const link = (direction: 'up' | 'down', index: number) =>
        new DatagramLink<Datagram>(profile[direction], {
          seed: deriveSeed(seed, index),
          origin: realTimers.now(),
          preserveOrder: options.reorder !== true,
        });
      this.links = { up: link('up', 0), down: link('down', 1) };
      this.pumps.push(new DeliveryPump(this.links.up, (d) => this.toServer(d)), new DeliveryPump(this.links.down, (d) => this.toClient(d)));
    }
    clientSocket.on('message', (payload, from) => this.fromClient(payload, from));
    clientSocket.on('error', () => {
      // A datagram the kernel would not send (the client went away): lost, as on a real path; never a crash.
    });
  }

  static async start(options: UdpRelayOptions): Promise<UdpRelay> {
    const socket = await bindInRange(options.listenAddress ?? '127.0.0.1', options.portRange);
    return new UdpRelay(socket, options, options.seed ?? freshSeed());
  }

  /** The client side: what the client is told the server's candidate is. */
  get address(): { address: string; port: number } {
    const { address, port } = this.clientSocket.address();
    return { address, port };
  }

  /** Datagrams offered, lost, dropped and delivered each way; zeros on a transparent link. */
  counters(): Record<'up' | 'down', DatagramCounters> {
    const zero = { offered: 0, onWire: 0, lost: 0, queueDrops: 0, memoryDrops: 0, delivered: 0 };
    return { up: { ...(this.links?.up.counters ?? zero) }, down: { ...(this.links?.down.counters ?? zero) } };
  }

  private fromClient(payload: Buffer, from: RemoteInfo): void {
    const datagram = { payload, client: `${from.address}:${from.port}` };
    if (!this.serverSocketFor(datagram.client)) return;
    this.through('up', datagram);
  }

  private through(direction: 'up' | 'down', datagram: Datagram): void {
    if (this.closed) return;
    if (!this.links) {
      if (direction === 'up') this.toServer(datagram);
      else this.toClient(datagram);
      return;
    }
    this.links[direction].send(realTimers.now(), datagram, datagram.payload.byteLength + UDP_IP_HEADER_BYTES);
    this.pumps[direction === 'up' ? 0 : 1]!.poke();
  }

  /** One socket per client address, so the server sees each client flow as its own peer-reflexive address. */
  private serverSocketFor(client: string): Socket | undefined {
    const existing = this.serverSockets.get(client);
    if (existing || this.closed || this.serverSockets.size >= MAX_CLIENT_FLOWS) return existing;
    const socket = createSocket('udp4');
    // Bound to the relay's own address (never a wildcard); sends made while it binds are queued by Node.
    socket.bind(0, this.options.listenAddress ?? '127.0.0.1');
    socket.on('message', (payload, from) => {
      if (from.port !== this.options.target.port || from.address !== this.options.target.address) return;
      this.through('down', { payload, client });
    });
    socket.on('error', () => {
      // A datagram the kernel would not send (the server went away): lost, as on a real path.
    });
    this.serverSockets.set(client, socket);
    return socket;
  }

  private toServer(datagram: Datagram): void {
    const socket = this.serverSockets.get(datagram.client);
    if (!socket || this.closed) return;
    socket.send(datagram.payload, this.options.target.port, this.options.target.address);
  }

  private toClient(datagram: Datagram): void {
    if (this.closed) return;
    const colon = datagram.client.lastIndexOf(':');
    this.clientSocket.send(datagram.payload, Number(datagram.client.slice(colon + 1)), datagram.client.slice(0, colon));
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    for (const pump of this.pumps) pump.stop();
    const sockets = [this.clientSocket, ...this.serverSockets.values()];
    return Promise.all(
      sockets.map(
        (socket) =>
          new Promise<void>((resolve) => {
            try {
              socket.close(() => resolve());
            } catch {
              resolve(); // never bound
            }
          }),
      ),
    ).then(() => undefined);
  }
}
