/**
 * The servers a WebRTC comparison runs, where its link needs them: on loopback (no link, or a link the UDP
 * relay carries), or inside a packet link's network namespace (every packet through the link; root). All
 * three start one after the other (they would compete for the cores while loading models); a peer that
 * cannot start is left out with the reason, a gateway that cannot start fails the run.
 */
import { startGatewayProcess } from '@sightline/harness/process';
import { startWebRtcPeer } from '../../baselines/webrtc-process.ts';
import type { PacketLink } from '../../link/packet/packet-link.ts';
import { startGatewayInLink, startPeerInLink } from '../../webrtc/servers-in-link.ts';
import { startInTurn } from '../start-servers.ts';
import { WEBRTC_SERVERS, type WebRtcServerKey } from './rows.ts';

export interface ServerSet {
  /** Base URL of each server that started. */
  urls: Partial<Record<WebRtcServerKey, string>>;
  /** Servers left out, with the reason. */
  notStarted: Array<{ key: WebRtcServerKey; reason: string }>;
  stop(): Promise<void>;
}

export interface ServerSettings {
  threads: number;
  workers: number;
}

/** The gateway's settings, as the other presets give them. */
export function gatewayEnv(settings: ServerSettings): Record<string, string> {
  return { SIGHTLINE_THREADS: String(settings.threads), SIGHTLINE_WORKERS: String(settings.workers) };
}

/** Ports the servers take inside a namespace of their own (nothing else listens there). */
const PORTS_IN_LINK: Record<WebRtcServerKey, number> = { gateway: 8080, 'peer-latest': 8092, 'peer-queue': 8093 };

async function startAll(
  start: (key: WebRtcServerKey) => Promise<{ url: string; stop(): Promise<void> }>,
  log: (line: string) => void,
): Promise<ServerSet> {
  const { running, notStarted } = await startInTurn(
    WEBRTC_SERVERS,
    async (plan) => {
      log(`starting ${plan.name}...`);
      return { key: plan.key, ...(await start(plan.key)) };
    },
    (plan) => plan.key !== 'gateway',
    log,
  );
  return {
    urls: Object.fromEntries(running.map((s) => [s.key, s.url])),
    notStarted: notStarted.map(({ plan, reason }) => ({ key: plan.key, reason })),
    stop: async () => void (await Promise.allSettled(running.map((s) => s.stop()))),
  };
}

export function startLoopbackServers(settings: ServerSettings, log: (line: string) => void): Promise<ServerSet> {
  return startAll(async (key) => {
    const mode = WEBRTC_SERVERS.find((s) => s.key === key)!.mode;
    if (mode === undefined) return startGatewayProcess({ env: gatewayEnv(settings) });
    const peer = await startWebRtcPeer({ mode, threads: settings.threads });
    return { url: peer.server.url, stop: () => peer.stop() };
  }, log);
}

export function startServersInLink(link: PacketLink, settings: ServerSettings, log: (line: string) => void): Promise<ServerSet> {
  return startAll((key) => {
    const mode = WEBRTC_SERVERS.find((s) => s.key === key)!.mode;
    const port = PORTS_IN_LINK[key];
    if (mode === undefined) return startGatewayInLink(link, { port, env: gatewayEnv(settings) });
    return startPeerInLink(link, { port, mode, threads: settings.threads });
  }, log);
}
