/**
 * The WebRTC stack: peer sessions on libdatachannel (their data channels and video receivers, RTP turned into
 * encoded frames by rtp/), the offers they answer, the session manager. WHIP signalling and the frame core's
 * adapter for peers are the way in (whip/).
 */
export { SessionManager, type CreatedSession, type SessionEndReason, type SessionManagerOptions } from './session-manager.ts';
export {
  PeerSession,
  type PeerState,
  type PeerStats,
  type SessionDataChannel,
  type VideoFrameEvent,
  type VideoStats,
} from './peer-session.ts';
export { WhipError, type WhipErrorCode } from './whip-error.ts';
export { WEBRTC_DEFAULTS, parsePortRange, type IceServerConfig, type WebRtcConfig } from './webrtc-config.ts';
export type { EncodedVideoFrame, FrameDropReason, RtpVideoCodec } from '../rtp/frame-assembler.ts';
