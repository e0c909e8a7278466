/**
 * WebRTC servers inside a packet link's network namespace (bench/link/packet, root): there every packet
 * between the benchmark and the server, the WHIP request and the whole UDP flow alike, crosses the emulated
 * link. A server there binds the namespace's address, and a WebRTC server's host candidate is that address
 * too (the gateway's ICE binds HOST; the Python peer's --host), so the only route to it is the link. The
 * sender binds the link's host address (`PacketLink.hostAddress`) for the same reason.
 *
 * The gateway runs as `pnpm start` does, bound to a non-loopback address, which it treats as exposed: TLS
 * and the token are turned off here (SIGHTLINE_TLS=off, SIGHTLINE_AUTH=none) so the requests are the same
 * plain HTTP as on loopback, and the namespace's address is an allowed Host.
 */
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { webRtcPeerEnv, WEBRTC_PEER_NAMES, type WebRtcPeerMode } from '../baselines/webrtc-process.ts';
import type { PacketLink } from '../link/packet/packet-link.ts';
import { DEFAULT_GATEWAY_DIR, healthy } from '../reliability/gateway-under-test.ts';

const PEER_DIR = fileURLToPath(new URL('../baselines/webrtc/', import.meta.url));
const OUTPUT_TAIL_CHARS = 8000;

export interface ServerInLink {
  name: string;
  /** http://<namespace address>:<port> */
  url: string;
  /** The last of what it printed. */
  output(): string;
  stop(): Promise<void>;
}

interface StartSpec {
  name: string;
  command: string;
  args: readonly string[];
  cwd: string;
  env: Record<string, string>;
  port: number;
  startTimeoutMs?: number;
}

function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Runs `spec` inside the link's namespace; resolves once its /healthz answers ok through the link. */
export async function startInLink(link: PacketLink, spec: StartSpec): Promise<ServerInLink> {
  const child = link.spawn(spec.command, spec.args, {
    cwd: spec.cwd,
    env: { ...process.env, ...spec.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  const keep = (chunk: Buffer) => (tail = (tail + chunk.toString()).slice(-OUTPUT_TAIL_CHARS));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const url = `http://${link.namespaceAddress}:${spec.port}`;
  const server: ServerInLink = { name: spec.name, url, output: () => tail, stop: () => stopChild(child) };
  const deadline = Date.now() + (spec.startTimeoutMs ?? 180_000);
  while (!(await healthy(url, 3000))) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${spec.name} exited (code ${child.exitCode}, signal ${child.signalCode}) before it was healthy:\n${tail}`);
    }
    if (Date.now() > deadline) {
      await server.stop();
      throw new Error(`${spec.name} not healthy at ${url} after ${spec.startTimeoutMs ?? 180_000} ms:\n${tail}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  return server;
}

/** The gateway inside the link, on `port` of the namespace's address, with `env` (SIGHTLINE_* settings) added. */
export function startGatewayInLink(
  link: PacketLink,
  options: { port: number; env: Record<string, string>; dir?: string; name?: string },
): Promise<ServerInLink> {
  return startInLink(link, {
    name: options.name ?? 'gateway',
    command: process.execPath,
    args: ['--import', 'tsx', 'src/main.ts'],
    cwd: options.dir ?? DEFAULT_GATEWAY_DIR,
    port: options.port,
    env: {
      LOG_LEVEL: 'warn',
      ...options.env,
      HOST: link.namespaceAddress,
      PORT: String(options.port),
      SIGHTLINE_TLS: 'off',
      SIGHTLINE_AUTH: 'none',
      SIGHTLINE_ALLOWED_HOSTS: link.namespaceAddress,
    },
  });
}

/** The Python WebRTC peer inside the link (its venv made first if needed). */
export async function startPeerInLink(
  link: PacketLink,
  options: { port: number; mode: WebRtcPeerMode; threads: number },
): Promise<ServerInLink> {
  const { python, env } = await webRtcPeerEnv();
  return startInLink(link, {
    name: WEBRTC_PEER_NAMES[options.mode],
    command: python,
    args: [
      join(PEER_DIR, 'whip_server.py'),
      '--port',
      String(options.port),
      '--host',
      link.namespaceAddress,
      '--threads',
      String(options.threads),
      '--mode',
      options.mode,
    ],
    cwd: PEER_DIR,
    port: options.port,
    env,
  });
}
