/**
 * Which way frames travel to the gateway (the Transport choice, `?transport=`): the one WebSocket, or a WebRTC
 * peer connection signalled by WHIP, where a JPEG codec means frames on an unordered data channel with no
 * retransmissions and a video codec means the camera as a video track (webrtc/).
 */
import { isVideoCodec, type StreamCodec } from './stream-codecs.ts';

export const TRANSPORTS = ['websocket', 'webrtc'] as const;
export type Transport = (typeof TRANSPORTS)[number];

export const TRANSPORT_LABELS: Readonly<Record<Transport, string>> = { websocket: 'WebSocket', webrtc: 'WebRTC' };

export const TRANSPORT_HINTS: Readonly<Record<Transport, string>> = {
  websocket: 'Frames and answers on the one WebSocket (TCP): nothing is lost, a lost packet delays what follows.',
  webrtc:
    'A WebRTC peer connection (WHIP): JPEG frames on an unordered data channel without retransmissions, or the camera as a video track.',
};

/** How frames reach the gateway: the transport, and on WebRTC whether they are JPEG frames or the camera's video. */
export type TransportMode = 'websocket' | 'data-channel' | 'track';

export const TRANSPORT_MODE_LABELS: Readonly<Record<TransportMode, string>> = {
  websocket: 'WebSocket',
  'data-channel': 'WebRTC data channel',
  track: 'WebRTC video track',
};

/** WebRTC only carries frames the gateway computes: on this device alone, the socket stays the link. */
export function transportMode(settings: { transport: Transport; codec: StreamCodec; runOn: string }): TransportMode {
  if (settings.transport !== 'webrtc' || settings.runOn === 'device') return 'websocket';
  return isVideoCodec(settings.codec) ? 'track' : 'data-channel';
}
