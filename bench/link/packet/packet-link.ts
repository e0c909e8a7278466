/**
 * The packet path: an emulated link for real TCP and UDP packets, as root. A network namespace joined to
 * the host by two TUN devices, with the user-space forwarder (forwarder.ts) between them:
 *
 *   host process --> slXXXXXXh (host namespace) ==forwarder: DatagramLink each way==> slXXXXXXn (link namespace) --> server
 *
 * The host reaches the namespace at `namespaceAddress` (and the namespace the host at `hostAddress`),
 * addresses from 198.18.0.0/15 (RFC 2544's range for benchmarking, never routed). A server runs inside with
 * `spawn()`. The rate and queue come from the forwarder (`shaper: 'user'`, the default, same engine as the
 * byte-stream proxy, traces included) or from the kernel's tbf on each device's egress (`shaper: 'kernel'`,
 * for comparison); delay, jitter and loss always from the forwarder (this kernel has no netem).
 *
 * No leftovers by construction: the namespace is unnamed and held by the forwarder process; the TUN devices
 * are not persistent, so they go when its descriptors close; the forwarder exits when its stdin closes
 * (this process ended, however); processes spawned inside get SIGKILL when this process dies (setpriv
 * --pdeathsig). close() does the same in order and waits for it.
 */
import { execFile, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freshSeed, type DatagramCounters, type LinkProfile } from '@sightline/shared/link';
import type { ForwarderConfig } from './forwarder.ts';
import { tbfArguments, withoutShaping } from './kernel-shaping.ts';

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
/** The bench package: where `tsx` resolves for the forwarder. */
const BENCH_ROOT = join(here, '..', '..');

/** Niceness of the forwarder: ahead of ordinary processes, behind nothing the system needs. */
const FORWARDER_NICE = -10;

export interface PacketLinkOptions {
  profile: LinkProfile;
  seed?: number;
  /** Who shapes rate and queue: the user-space forwarder (default) or the kernel's tbf. */
  shaper?: 'user' | 'kernel';
  /** The host end is the client (default: packets from the host go `up`) or the server. */
  hostIs?: 'client' | 'server';
  /** Let jitter reorder packets (default false: one queueing path keeps order). */
  reorder?: boolean;
  /** How long the forwarder may take to come up (it loads TypeScript). */
  startTimeoutMs?: number;
}

export class PacketLinkUnavailable extends Error {
  override readonly name = 'PacketLinkUnavailable';
}

/** Why the packet path cannot run here, or undefined when it can. */
export function packetLinkUnavailable(): string | undefined {
  if (process.platform !== 'linux') return 'the packet path needs Linux (network namespaces and TUN devices)';
  if (process.getuid?.() !== 0) {
    return 'the packet path needs root (it creates a network namespace and TUN devices); without root use the byte-stream proxy (pnpm bench --link)';
  }
  if (!existsSync('/dev/net/tun')) return 'no /dev/net/tun: the kernel or container offers no TUN devices';
  for (const tool of ['/usr/bin/unshare', '/usr/bin/nsenter', '/usr/bin/setpriv']) {
    if (!existsSync(tool)) return `${tool} is missing (util-linux)`;
  }
  if (!['/usr/sbin/ip', '/sbin/ip', '/usr/bin/ip'].some((path) => existsSync(path))) return 'the ip command is missing (iproute2)';
  return undefined;
}

async function command(file: string, args: string[]): Promise<string> {
  try {
    return (await run(file, args)).stdout;
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new Error(`${file} ${args.join(' ')}: ${stderr || (error as Error).message}`, { cause: error });
  }
}

/** A free /30 of 198.18.0.0/15: host .1, namespace .2. */
async function pickSubnet(): Promise<{ host: string; namespace: string }> {
  const inUse = await command('ip', ['-4', '-o', 'addr', 'show']);
  for (;;) {
    const block = randomInt(0, 32768) * 4;
    const third = 18 + Math.floor(block / 65536);
    const rest = block % 65536;
    const base = `198.${third}.${Math.floor(rest / 256)}.`;
    const host = `${base}${(rest % 256) + 1}`;
    if (!inUse.includes(` ${host} `) && !inUse.includes(` ${host}/`)) return { host, namespace: `${base}${(rest % 256) + 2}` };
  }
}

export type PacketLinkStats = Record<'up' | 'down', DatagramCounters>;

export class PacketLink {
  private readonly children = new Set<ChildProcess>();
  private closing: Promise<void> | undefined;
  private readonly onExit = () => this.forwarder.kill('SIGKILL');
  private pendingStats: Array<(stats: PacketLinkStats) => void> = [];

  private constructor(
    private readonly forwarder: ChildProcess,
    readonly hostTun: string,
    readonly namespaceTun: string,
    readonly hostAddress: string,
    readonly namespaceAddress: string,
    readonly seed: number,
  ) {
    process.once('exit', this.onExit);
  }

  /** Sets up the namespace, devices, addresses and shaping; throws PacketLinkUnavailable without root. */
  static async start(options: PacketLinkOptions): Promise<PacketLink> {
    const unavailable = packetLinkUnavailable();
    if (unavailable) throw new PacketLinkUnavailable(unavailable);
    const shaper = options.shaper ?? 'user';
    const hostIs = options.hostIs ?? 'client';
    const { profile } = options;
    const id = randomInt(0, 0xffffff).toString(16).padStart(6, '0');
    const hostTun = `sl${id}h`;
    const namespaceTun = `sl${id}n`;
    const seed = options.seed ?? freshSeed();
    const forwarded: LinkProfile =
      shaper === 'kernel' ? { ...profile, up: withoutShaping(profile.up), down: withoutShaping(profile.down) } : profile;
    // Checked before anything starts: a trace cannot be a tbf rate.
    const hostEgress = hostIs === 'client' ? profile.up : profile.down;
    const namespaceEgress = hostIs === 'client' ? profile.down : profile.up;
    const tbf =
      shaper === 'kernel' ? { host: tbfArguments(hostTun, hostEgress), namespace: tbfArguments(namespaceTun, namespaceEgress) } : undefined;
    const config: ForwarderConfig = { hostTun, namespaceTun, profile: forwarded, hostIs, seed, reorder: options.reorder === true };
    // The forwarder is the link's clock: at a raised priority (we are root) its deliveries wait less for a busy CPU.
    const forwarderCommand = [
      'unshare',
      '--net',
      '--',
      process.execPath,
      '--import',
      'tsx',
      join(here, 'forwarder.ts'),
      JSON.stringify(config),
    ];
    const forwarder = spawn('nice', ['-n', String(FORWARDER_NICE), ...forwarderCommand], {
      cwd: BENCH_ROOT,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const subnet = await pickSubnet();
    const link = new PacketLink(forwarder, hostTun, namespaceTun, subnet.host, subnet.namespace, seed);
    try {
      await link.waitReady(options.startTimeoutMs ?? 30_000);
      const inside = ['--net=' + link.namespacePath, '--'];
      await command('nsenter', [...inside, 'ip', 'link', 'set', hostTun, 'netns', String(process.pid)]);
      await command('nsenter', [...inside, 'ip', 'link', 'set', 'lo', 'up']);
      await command('nsenter', [...inside, 'ip', 'addr', 'add', subnet.namespace, 'peer', subnet.host, 'dev', namespaceTun]);
      await command('nsenter', [...inside, 'ip', 'link', 'set', namespaceTun, 'up']);
      await command('ip', ['addr', 'add', subnet.host, 'peer', subnet.namespace, 'dev', hostTun]);
      await command('ip', ['link', 'set', hostTun, 'up']);
      if (tbf?.host) await command('tc', tbf.host);
      if (tbf?.namespace) await command('nsenter', [...inside, 'tc', ...tbf.namespace]);
    } catch (error) {
      await link.close();
      throw error;
    }
    return link;
  }

  /** The link namespace, for `nsenter --net=`. */
  get namespacePath(): string {
    return `/proc/${this.forwarder.pid}/ns/net`;
  }

  private waitReady(timeoutMs: number): Promise<void> {
    const lines = createInterface({ input: this.forwarder.stdout! });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the packet link's forwarder did not start within ${timeoutMs} ms`)), timeoutMs);
      this.forwarder.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the packet link's forwarder exited (${code}) before it was ready`));
      });
      lines.on('line', (line) => {
        let message: { ready?: boolean; error?: string; stats?: PacketLinkStats };
        try {
          message = JSON.parse(line) as typeof message;
        } catch {
          return;
        }
        if (message.ready) {
          clearTimeout(timer);
          resolve();
        } else if (message.error) {
          clearTimeout(timer);
          reject(new Error(`packet link forwarder: ${message.error}`));
        } else if (message.stats) {
          this.pendingStats.shift()?.(message.stats);
        }
      });
    });
  }

  /** Runs a command inside the link namespace; it is killed when this link closes or this process dies. */
  spawn(file: string, args: readonly string[] = [], options: SpawnOptions = {}): ChildProcess {
    if (this.closing) throw new Error('the packet link is closed');
    const child = spawn('nsenter', [`--net=${this.namespacePath}`, '--', 'setpriv', '--pdeathsig', 'KILL', '--', file, ...args], options);
    this.children.add(child);
    child.once('exit', () => this.children.delete(child));
    return child;
  }

  /** Packets offered, lost, dropped and delivered per direction so far. */
  stats(): Promise<PacketLinkStats> {
    return new Promise((resolve) => {
      this.pendingStats.push(resolve);
      this.forwarder.stdin!.write('stats\n');
    });
  }

  /** Kills what runs inside, stops the forwarder: the namespace and both devices are gone when this resolves. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.all([...this.children].map((child) => stopChild(child)));
      await stopChild(this.forwarder, () => this.forwarder.stdin?.end());
      process.off('exit', this.onExit);
    })();
    return this.closing;
  }
}

/** Asks a child to stop (`politely`, or SIGTERM), then SIGKILL after 3 s; resolves once it has exited. */
function stopChild(child: ChildProcess, politely?: () => void): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 3000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    if (politely) politely();
    else child.kill('SIGTERM');
  });
}
