import type { WebSocket } from 'ws';
import type { CloseCode } from '@sightline/shared/protocol';

/**
 * How long a peer has to complete the closing handshake. ws waits 30 s by default, which is how one
 * client that stopped reading kept a stopping gateway alive for 30 s.
 */
export const CLOSE_GRACE_MS = 1000;

/** Sends a close frame with the code and reason, and cuts the connection if the peer does not answer in time. */
export function closeWithin(socket: WebSocket, code: CloseCode, reason: string, graceMs = CLOSE_GRACE_MS): void {
  if (socket.readyState === socket.CLOSED) return;
  if (socket.readyState === socket.OPEN) socket.close(code, reason);
  const timer = setTimeout(() => socket.terminate(), graceMs);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}
