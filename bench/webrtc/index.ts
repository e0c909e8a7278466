/**
 * The WebRTC benchmark client, for whatever tables transports side by side (`pnpm bench:links` adds its two
 * transports as rows): `runWebRtcCell({ transport: 'webrtc-dc' | 'webrtc-track', codec, link, serverUrl,
 * durationS })` -> `{ detectionsPerS, p50, p95, p99, bytesPerFrame, bytesPerS, refused, lost, ... }`. A link
 * is applied by a user-space UDP relay here (no root) unless the path to the server carries it already
 * (`linkPath: 'network'`, a server inside a packet link, with `clientAddress` its host end). Pass a `clip`
 * from prepareClip(fps) when running many cells, so it is made once.
 */
export { prepareClip, type Clip } from './clip.ts';
export { pooledFigures, windowFigures, type FrameSample, type PeriodFigures } from './figures.ts';
export {
  runWebRtcCell,
  WEBRTC_CELL_DEFAULTS,
  WEBRTC_CODECS,
  WEBRTC_TRANSPORTS,
  type WebRtcCellOptions,
  type WebRtcCellResult,
  type WebRtcTransport,
} from './run-cell.ts';
export { startGatewayInLink, startPeerInLink, type ServerInLink } from './servers-in-link.ts';
