/**
 * The packet path's user-space link: run by `PacketLink` as `unshare --net node forwarder.ts CONFIG`, so it
 * sits in the link's network namespace and holds it (the namespace dies with this process). It opens two TUN
 * devices: the host's (moved to the host's namespace by the parent) and the namespace's. Every IP packet
 * read from one goes through a `DatagramLink` (queue, rate or trace, loss, delay +- jitter) and is written
 * to the other when it is due. TCP and UDP alike: a lost packet is really lost, TCP retransmits it.
 *
 * Protocol with the parent on stdio: one JSON line `{"ready":true}` once both devices exist; a line `stats`
 * on stdin is answered with `{"stats":{...}}`; the end of stdin (the parent closed it, or died) ends this
 * process, and the kernel then removes both devices and the namespace.
 */
import { read, writeSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { DatagramLink, deriveSeed, DeliveryPump, realTimers, type LinkDirection, type LinkProfile } from '@sightline/shared/link';
import { loadTraces } from '../traces.ts';
import { openTun } from './tun.ts';

export interface ForwarderConfig {
  hostTun: string;
  namespaceTun: string;
  profile: LinkProfile;
  /** Which end the host is: packets from the host travel `up` when it is the client. */
  hostIs: 'client' | 'server';
  seed: number;
  /** Let jitter reorder packets (default: keep order, as a single queueing path does). */
  reorder: boolean;
}

/** Largest packet a TUN read returns without offloads: the MTU, with room to spare. */
const READ_BYTES = 65_536;

function pump(
  fromFd: number,
  toFd: number,
  direction: LinkDirection,
  seed: number,
  reorder: boolean,
  traces: Awaited<ReturnType<typeof loadTraces>>['up'],
) {
  const link = new DatagramLink<Buffer>(direction, { seed, preserveOrder: !reorder, origin: realTimers.now(), trace: traces });
  const delivery = new DeliveryPump<Buffer>(link, (packet) => {
    try {
      writeSync(toFd, packet);
    } catch {
      // A packet the far device will not take (it went down) is a packet lost; the link goes on.
    }
  });
  const buffer = Buffer.allocUnsafe(READ_BYTES);
  const next = (): void => {
    read(fromFd, buffer, 0, READ_BYTES, null, (error, bytes) => {
      if (error) return; // the device is gone: the process is ending
      link.send(realTimers.now(), Buffer.from(buffer.subarray(0, bytes)), bytes);
      delivery.poke();
      next();
    });
  };
  next();
  return link;
}

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2] ?? '{}') as ForwarderConfig;
  const traces = await loadTraces(config.profile);
  const hostFd = openTun(config.hostTun);
  const namespaceFd = openTun(config.namespaceTun);
  const hostToNs = config.hostIs === 'client' ? 'up' : 'down';
  const nsToHost = hostToNs === 'up' ? 'down' : 'up';
  const links = {
    [hostToNs]: pump(hostFd, namespaceFd, config.profile[hostToNs], deriveSeed(config.seed, 0), config.reorder, traces[hostToNs]),
    [nsToHost]: pump(namespaceFd, hostFd, config.profile[nsToHost], deriveSeed(config.seed, 1), config.reorder, traces[nsToHost]),
  } as Record<'up' | 'down', DatagramLink<Buffer>>;
  process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    if (line.trim() === 'stats') {
      process.stdout.write(`${JSON.stringify({ stats: { up: links.up.counters, down: links.down.counters } })}\n`);
    }
  });
  // The parent is gone or done: leave at once. A normal exit would wait for the two reads blocked in the
  // thread pool on the TUN devices (seconds); the kernel removes the devices and the namespace either way.
  lines.on('close', () => process.kill(process.pid, 'SIGKILL'));
}

main().catch((error: unknown) => {
  process.stdout.write(`${JSON.stringify({ error: (error as Error).message })}\n`);
  process.exit(1);
});
