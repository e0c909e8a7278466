/** A WebSocket connection as a session's message channel. */
import type { WebSocket } from 'ws';
import type { CloseCode } from '@sightline/shared/protocol';
import type { ConnectionLink } from '../link/connection-link.ts';
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

/**
 * A WebSocket connection behind an emulated link: replies cross the downlink before they are written, and they
 * count as waiting to be sent until they have; a close goes out after the replies sent before it.
 * `onClose` receives the function the link calls once the downlink has carried everything.
 */
export function linkedWsChannel(socket: WebSocket, link: ConnectionLink, onClose: (close: () => void) => void): MessageChannel {
  return {
    get open() {
      return socket.readyState === socket.OPEN;
    },
    get bufferedAmount() {
      return socket.bufferedAmount + link.downlinkBytes;
    },
    send: (data, binary) => link.send(data, binary),
    close: (code: CloseCode, reason: string) => {
      onClose(() => closeWithin(socket, code, reason));
      link.close();
    },
  };
}
