/**
 * What a protocol session needs of the channel its client speaks on, whatever carries it: a WebSocket
 * connection (ws/ws-channel.ts) or a WebRTC data channel. Messages arrive whole; the adapter hands each to
 * the session and tells it when the channel has closed.
 */
import type { CloseCode } from '@sightline/shared/protocol';

export interface MessageChannel {
  /** Whether a message sent now can still go out. */
  readonly open: boolean;
  /** Bytes accepted for sending and not written yet: a client that does not read makes this grow. */
  readonly bufferedAmount: number;
  /** One whole message: binary (MessagePack) or text (JSON). */
  send(data: string | Uint8Array, binary: boolean): void;
  /** Ends the channel with a code and a reason (a channel without codes closes; its peer reconnects). */
  close(code: CloseCode, reason: string): void;
}
