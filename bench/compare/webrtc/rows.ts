/**
 * What `pnpm bench:compare --preset webrtc` measures: three servers (the gateway, the Python aiortc peer in
 * each of its two modes) and the rows, a server on a path. The peer's mode only changes how its video track is
 * consumed (its `frames` channel is the same session either way), so the data channel is measured once there.
 * Pure.
 */
import { WEBRTC_PEER_NAMES, type WebRtcPeerMode } from '../../baselines/webrtc-process.ts';
import type { WebRtcTransport } from '../../webrtc/run-cell.ts';

export type WebRtcServerKey = 'gateway' | 'peer-latest' | 'peer-queue';

export interface WebRtcServerPlan {
  key: WebRtcServerKey;
  name: string;
  /** Shell variable of its URL in the printed commands. */
  variable: string;
  /** The peer's mode; undefined for the gateway. */
  mode?: WebRtcPeerMode;
}

export const WEBRTC_SERVERS: readonly WebRtcServerPlan[] = [
  { key: 'gateway', name: 'Sightline', variable: 'GATEWAY' },
  { key: 'peer-latest', name: WEBRTC_PEER_NAMES.latest, variable: 'PEER_LATEST', mode: 'latest' },
  { key: 'peer-queue', name: WEBRTC_PEER_NAMES.queue, variable: 'PEER_QUEUE', mode: 'queue' },
];

export const PATH_NAMES: Record<WebRtcTransport, string> = {
  'webrtc-dc': 'data channel (JPEG, MessagePack)',
  'webrtc-track': 'video track (VP8)',
};

export interface WebRtcRow {
  server: WebRtcServerKey;
  transport: WebRtcTransport;
}

/** The cells' rows, paths grouped so each path's servers sit together in a table. */
export const CELL_ROWS: readonly WebRtcRow[] = [
  { server: 'gateway', transport: 'webrtc-track' },
  { server: 'peer-latest', transport: 'webrtc-track' },
  { server: 'peer-queue', transport: 'webrtc-track' },
  { server: 'gateway', transport: 'webrtc-dc' },
  { server: 'peer-latest', transport: 'webrtc-dc' },
];

/** The long run: the video track, where the goal (bounded delay after 5 minutes) is set. */
export const LONG_RUN_ROWS: readonly WebRtcRow[] = CELL_ROWS.filter((row) => row.transport === 'webrtc-track');

export function serverPlan(key: WebRtcServerKey): WebRtcServerPlan {
  return WEBRTC_SERVERS.find((s) => s.key === key)!;
}

export function rowName(row: WebRtcRow): string {
  return `${serverPlan(row.server).name} · ${PATH_NAMES[row.transport]}`;
}
