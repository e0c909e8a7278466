/**
 * What the WebRTC side needs from the gateway's settings: where its UDP sockets bind, which ports they may
 * use (a range a firewall, a container or a Kubernetes Service can expose), the STUN/TURN servers for
 * peers behind NAT, and how many peers it takes at once.
 */
import type { IceServer } from 'node-datachannel';
import type { RtpVideoCodec } from '../rtp/frame-assembler.ts';

/** The browser's RTCIceServer shape, so one setting serves both ends. */
export interface IceServerConfig {
  urls: string | string[];
  username?: string;
  credential?: string;
}

export interface WebRtcConfig {
  /** The only address ICE gathers and binds on: host candidates from this address alone. */
  bindAddress: string;
  /** Inclusive UDP port range for every peer's socket; undefined lets the OS pick. */
  portRange?: { min: number; max: number };
  iceServers: IceServerConfig[];
  maxPeers: number;
  /** Video codecs accepted, most wanted first: the answer lists them in this order. */
  videoCodecs: RtpVideoCodec[];
  /**
   * How long a missing video packet is waited for (it was NACKed; the resend takes a round trip) before its
   * frame is given up and a keyframe asked for. Frames behind the hole wait with it.
   */
  videoReorderWaitMs: number;
  /** Bitrate asked of a video sender (REMB). */
  videoBitrateBps: number;
  /** A peer that has not connected this long after its answer is closed. */
  connectTimeoutMs: number;
  /** A peer left `disconnected` (consent lost) this long is closed. */
  disconnectGraceMs: number;
  /** A connected peer that sent nothing (RTP, RTCP, data-channel message) this long is closed. */
  inactivityTimeoutMs: number;
}

export const WEBRTC_DEFAULTS: Omit<WebRtcConfig, 'bindAddress'> = {
  iceServers: [],
  maxPeers: 16,
  videoCodecs: ['vp8', 'h264'],
  videoReorderWaitMs: 250,
  videoBitrateBps: 2_500_000,
  connectTimeoutMs: 15_000,
  disconnectGraceMs: 3_000,
  inactivityTimeoutMs: 5_000,
};

/** "40000-40100" -> { min, max }; throws on anything else. */
export function parsePortRange(text: string): { min: number; max: number } {
  const match = /^\s*(\d{1,5})\s*-\s*(\d{1,5})\s*$/.exec(text);
  const min = Number(match?.[1]);
  const max = Number(match?.[2]);
  if (!match || min < 1024 || max > 65535 || min > max) {
    throw new Error(`UDP port range must be "MIN-MAX" within 1024-65535, got ${JSON.stringify(text)}`);
  }
  return { min, max };
}

/** RTCIceServer entries -> libdatachannel's servers (its own IceServer objects, credentials kept apart). */
export function toNativeIceServers(servers: readonly IceServerConfig[]): IceServer[] {
  return servers.flatMap((server) =>
    (Array.isArray(server.urls) ? server.urls : [server.urls]).map((url): IceServer => {
      const match = /^(stuns?|turns?):(?:\/\/)?([^:?]+|\[[^\]]+\])(?::(\d+))?(?:\?transport=(udp|tcp))?$/.exec(url);
      if (!match) throw new Error(`ICE server URL must be stun:, turn: or turns:HOST[:PORT][?transport=udp|tcp], got ${url}`);
      const [, scheme, hostname, port, transport] = match;
      const secure = scheme!.endsWith('s');
      const entry: IceServer = { hostname: hostname!.replace(/^\[|\]$/g, ''), port: Number(port ?? (secure ? 5349 : 3478)) };
      if (scheme!.startsWith('turn')) {
        if (server.username === undefined || server.credential === undefined)
          throw new Error(`TURN server ${url} needs a username and a credential`);
        entry.username = server.username;
        entry.password = server.credential;
        entry.relayType = secure ? 'TurnTls' : transport === 'tcp' ? 'TurnTcp' : 'TurnUdp';
      }
      return entry;
    }),
  );
}
