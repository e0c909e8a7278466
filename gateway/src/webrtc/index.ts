/** The WebRTC side of the gateway: WHIP sessions on libdatachannel, plugged into the frame core as an adapter. */
export { SessionManager, type CreatedSession, type SessionEndReason, type SessionManagerOptions } from './session-manager.ts';
export {
  PeerSession,
  type PeerState,
  type PeerStats,
  type SessionDataChannel,
  type VideoFrameEvent,
  type VideoStats,
} from './peer-session.ts';
export { handleWhipRequest, iceServerLinks, type WhipHttpOptions, type WhipRefusal } from './whip-http.ts';
export { WhipError, type WhipErrorCode } from './whip-error.ts';
export { WEBRTC_DEFAULTS, parsePortRange, type IceServerConfig, type WebRtcConfig } from './webrtc-config.ts';
export type { EncodedVideoFrame, FrameDropReason, VideoCodec } from './frame-assembler.ts';
