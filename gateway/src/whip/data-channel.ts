/** A WebRTC data channel as a session's message channel: the same protocol session as a WebSocket connection. */
import type { CloseCode } from '@sightline/shared/protocol';
import type { MessageChannel } from '../sessions/message-channel.ts';
import type { SessionDataChannel } from '../webrtc/index.ts';

export function dataChannelChannel(channel: SessionDataChannel): MessageChannel {
  return {
    get open() {
      return channel.open;
    },
    get bufferedAmount() {
      return channel.bufferedAmount();
    },
    send: (data) => void channel.send(data),
    // A data channel has no close codes: it closes, and the client reconnects (the drain and a slow consumer alike).
    close: (_code: CloseCode, _reason: string) => channel.close(),
  };
}
