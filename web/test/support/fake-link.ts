import { encodeMessage } from '@sightline/shared/codec';
import type { ServerMessage } from '@sightline/shared/protocol';
import { Signal } from '../../src/events/signal.ts';
import type { GatewayLink } from '../../src/transport/gateway-route.ts';
import type { ConnectionStatus, IncomingMessage } from '../../src/transport/gateway-socket.ts';

/** The gateway's socket as the gateway route sees it: a status and decoded messages, published when told. */
export class FakeLink implements GatewayLink {
  readonly statusChanged = new Signal<ConnectionStatus>();
  readonly messages = new Signal<IncomingMessage>();
  isOpen = false;

  open(): void {
    this.isOpen = true;
    this.statusChanged.emit({ state: 'open', attempt: 0 });
  }

  drop(): void {
    this.isOpen = false;
    this.statusChanged.emit({ state: 'reconnecting', attempt: 1 });
  }

  /** A message from the gateway, `bytes` long on the wire, arriving at `receivedAt`. */
  receive(message: ServerMessage, receivedAt = 0, bytes = encodeMessage(message, 'msgpack').byteLength): void {
    this.messages.emit({ message, codec: 'msgpack', bytes, receivedAt });
  }
}
