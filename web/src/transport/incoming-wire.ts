/**
 * A payload from the gateway, as the WebSocket (gateway-socket.ts) and a WebRTC data channel
 * (webrtc/peer-link.ts) hand it over, read as one of its messages: which message, in which codec, and its
 * size on the wire.
 */
import { codecOf, decodeServerMessage, type WireData } from '@sightline/shared/codec';
import type { Codec, ServerMessage } from '@sightline/shared/protocol';

export interface DecodedMessage {
  message: ServerMessage;
  codec: Codec;
  /** Size on the wire. */
  bytes: number;
}

/** The gateway's message in `data`, or why there is none: a payload of another type (`carrier` names its channel), or one the codec cannot read. */
export function decodeIncoming(data: unknown, carrier: string): DecodedMessage | Error {
  const wire = wireData(data);
  if (wire === undefined) return new Error(`unexpected ${carrier} payload type`);
  const codec = codecOf(wire);
  try {
    return { message: decodeServerMessage(wire, codec), codec, bytes: typeof wire === 'string' ? utf8Length(wire) : wire.byteLength };
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

function wireData(data: unknown): WireData | undefined {
  if (typeof data === 'string') return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return undefined;
}

const encoder = new TextEncoder();
function utf8Length(text: string): number {
  // Gateway text is ASCII JSON almost always; only encode when it is not.
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return encoder.encode(text).byteLength;
  return text.length;
}
