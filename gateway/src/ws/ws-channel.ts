/** A WebSocket connection as a session's message channel. */
import type { WebSocket } from 'ws';
import type { CloseCode } from '@sightline/shared/protocol';
import type { MessageChannel } from '../sessions/message-channel.ts';
import { closeWithin } from './close-socket.ts';

export function wsChannel(socket: WebSocket): MessageChannel {
  return {
    get open() {
      return socket.readyState === socket.OPEN;
    },
    get bufferedAmount() {
      return socket.bufferedAmount;
    },
    send: (data, binary) => socket.send(data, { binary }),
    // A peer that does not complete the closing handshake is cut off soon after.
    close: (code: CloseCode, reason: string) => closeWithin(socket, code, reason),
  };
}
