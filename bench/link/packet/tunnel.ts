/**
 * A TCP server of this host (the gateway on 127.0.0.1) reached through the packet path, so that any TCP
 * client (`pnpm bench --link ... --link-path packet`) crosses an emulated link as real segments: lost,
 * retransmitted, slow-started by the kernel's own TCP, which the byte-stream proxy cannot show.
 *
 *   client (host) --TCP over the link--> relay in the link namespace --Unix socket--> relay in this process --TCP--> server
 *
 * The far relay terminates the link's TCP connection next to the server, as a reverse proxy or load balancer
 * does beside a real gateway; the rest is local and lossless. A Unix socket joins the namespaces because its
 * path is shared by both (loopback is not), so the server runs unchanged, on loopback, as it would without a
 * link. Everything goes on close(): the relay dies with the namespace (PacketLink), the socket's folder is
 * removed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { LinkProfile } from '@sightline/shared/link';
import { PacketLink } from './packet-link.ts';

/** The far relay, plain JavaScript for `node -e` (no TypeScript loader inside the namespace): listen, pipe to the Unix socket. */
export const FAR_RELAY_JS = String.raw`
const net = require('node:net');
const [host, port, path] = [process.argv[1], Number(process.argv[2]), process.argv[3]];
const server = net.createServer({ allowHalfOpen: true, noDelay: true }, (client) => {
  const upstream = net.connect({ path, allowHalfOpen: true });
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
  client.on('close', () => upstream.destroy());
  upstream.on('close', () => client.destroy());
  client.pipe(upstream);
  upstream.pipe(client);
});
server.listen(port, host, () => console.log('listening'));
process.stdin.on('data', () => {});
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
`;

/** Pipes both ways, and one side's end or error closes the other (a broken path, as the client would see it). */
function splice(a: net.Socket, b: net.Socket): void {
  a.on('error', () => b.destroy());
  b.on('error', () => a.destroy());
  a.on('close', () => b.destroy());
  b.on('close', () => a.destroy());
  a.pipe(b);
  b.pipe(a);
}

export interface PacketTunnel {
  /** Where the client connects instead of the server: the far relay's address in the link namespace. */
  url: string;
  /** The seed of the link's draws (loss, jitter), to replay a run. */
  seed: number;
  link: PacketLink;
  close(): Promise<void>;
}

/**
 * Starts the packet path for `profile` in front of `baseUrl` (a server this host reaches) and returns the URL
 * to use instead. Needs root (PacketLink.start throws PacketLinkUnavailable otherwise).
 */
export async function startPacketTunnel(
  baseUrl: string,
  options: { profile: LinkProfile; seed?: number | undefined },
): Promise<PacketTunnel> {
  const target = new URL(baseUrl);
  const targetHost = target.hostname.replace(/^\[|\]$/g, '');
  const targetPort = target.port ? Number(target.port) : target.protocol === 'https:' ? 443 : 80;
  const dir = mkdtempSync(join(tmpdir(), 'sightline-tunnel-'));
  const socketPath = join(dir, 'relay.sock');
  const sockets = new Set<net.Socket>();
  const near = net.createServer({ allowHalfOpen: true }, (from) => {
    const to = net.connect({ host: targetHost, port: targetPort, allowHalfOpen: true, noDelay: true });
    for (const s of [from, to]) {
      sockets.add(s);
      s.once('close', () => sockets.delete(s));
    }
    splice(from, to);
  });
  let link: PacketLink | undefined;
  // Interrupted (the forwarder and the relay then die with this process): the socket's folder goes too.
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  process.once('exit', removeDir);
  const close = async () => {
    await link?.close();
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => near.close(() => resolve()));
    removeDir();
    process.off('exit', removeDir);
  };
  try {
    await new Promise<void>((resolve, reject) => {
      near.once('error', reject);
      near.listen(socketPath, () => resolve());
    });
    link = await PacketLink.start({ profile: options.profile, ...(options.seed !== undefined ? { seed: options.seed } : {}) });
    const farPort = targetPort;
    const relay = link.spawn(process.execPath, ['-e', FAR_RELAY_JS, link.namespaceAddress, String(farPort), socketPath], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: relay.stdout! }).once('line', () => resolve());
      relay.once('exit', (code) => reject(new Error(`the packet path's relay exited (${code}) before it listened`)));
    });
    const url = new URL(baseUrl);
    url.hostname = link.namespaceAddress;
    url.port = String(farPort);
    return { url: url.origin + url.pathname.replace(/\/+$/, ''), seed: link.seed, link, close };
  } catch (error) {
    await close();
    throw error;
  }
}
