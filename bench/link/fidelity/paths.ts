/**
 * The paths a fidelity measurement compares, each with a probe server at its far end: none (loopback), the
 * byte-stream proxy (no root), and the packet path shaped by the user-space forwarder or by the kernel's tbf
 * (root). Every path is torn down by its close(), the probe server included.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import type { LinkProfile } from '@sightline/shared/link';
import { LinkProxy } from '../link-proxy.ts';
import { PacketLink, type PacketLinkStats } from '../packet/packet-link.ts';
import { PROBE_SERVER_JS } from './probe-server.ts';

export type PathKind = 'loopback' | 'proxy' | 'packet-user' | 'packet-kernel';

export interface ProbePath {
  kind: PathKind;
  host: string;
  port: number;
  /** Packet paths: the forwarder's counters. */
  stats?: () => Promise<PacketLinkStats>;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function whenListening(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`probe server exited (${code})`)));
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.stdin?.end();
  });
}

async function loopbackServer(): Promise<{ port: number; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['-e', PROBE_SERVER_JS, '127.0.0.1', String(port)], { stdio: ['pipe', 'pipe', 'inherit'] });
  await whenListening(child);
  return { port, child };
}

export async function startPath(kind: PathKind, profile: LinkProfile, seed = 1): Promise<ProbePath> {
  if (kind === 'loopback' || kind === 'proxy') {
    const server = await loopbackServer();
    if (kind === 'loopback') return { kind, host: '127.0.0.1', port: server.port, close: () => stop(server.child) };
    // One bottleneck for all connections, as the packet path has: a bulk upload and pings share the queue.
    const proxy = new LinkProxy({
      targetHost: '127.0.0.1',
      targetPort: server.port,
      profile,
      seed,
      emulateHandshake: false,
      sharedBottleneck: true,
    });
    const { port } = await proxy.start();
    return {
      kind,
      host: '127.0.0.1',
      port,
      close: async () => {
        await proxy.close();
        await stop(server.child);
      },
    };
  }
  const link = await PacketLink.start({ profile, seed, shaper: kind === 'packet-kernel' ? 'kernel' : 'user' });
  try {
    const port = 7000;
    const child = link.spawn(process.execPath, ['-e', PROBE_SERVER_JS, link.namespaceAddress, String(port)], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    await whenListening(child);
    return { kind, host: link.namespaceAddress, port, stats: () => link.stats(), close: () => link.close() };
  } catch (error) {
    await link.close();
    throw error;
  }
}
