/**
 * The two codecs of the wire. JSON travels as WebSocket text (image as Base64), MessagePack as binary
 * (image as `bin`). Decoding only parses; validation.ts decides whether the result is a message.
 */
import { decode as msgpackDecode, encode as msgpackEncode } from '@msgpack/msgpack';
import { bytesToBase64 } from './base64.ts';
import type { ClientMessage, Codec, ServerMessage } from './protocol.ts';
import { excerpt, ProtocolError, validateClientMessage, validateServerMessage } from './validation.ts';

export type WireData = string | Uint8Array;

/** JSON cannot carry bytes: the only binary field of the protocol, `image`, becomes Base64. */
function toJsonText(message: ClientMessage | ServerMessage): string {
  if (message.type === 'frame') return JSON.stringify({ ...message, image: bytesToBase64(message.image) });
  return JSON.stringify(message);
}

export function encodeMessage(message: ClientMessage | ServerMessage, codec: 'json'): string;
export function encodeMessage(message: ClientMessage | ServerMessage, codec: 'msgpack'): Uint8Array;
export function encodeMessage(message: ClientMessage | ServerMessage, codec: Codec): WireData;
export function encodeMessage(message: ClientMessage | ServerMessage, codec: Codec): WireData {
  if (codec === 'json') return toJsonText(message);
  // undefined optional fields would otherwise be written as nil
  return msgpackEncode(message, { ignoreUndefined: true });
}

/** The codec a WebSocket message uses is told by its frame type: text is JSON, binary is MessagePack. */
export function codecOf(data: WireData): Codec {
  return typeof data === 'string' ? 'json' : 'msgpack';
}

/** Parses wire bytes into an untrusted value; throws {@link ProtocolError} `bad_message`. */
export function parseWire(data: WireData, codec: Codec = codecOf(data)): unknown {
  try {
    if (codec === 'json') {
      const text = typeof data === 'string' ? data : new TextDecoder('utf-8', { fatal: true }).decode(data);
      return JSON.parse(text);
    }
    const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
    return msgpackDecode(bytes);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ProtocolError('bad_message', `not valid ${codec === 'json' ? 'JSON' : 'MessagePack'}: ${excerpt(reason, 120)}`);
  }
}

export function decodeClientMessage(data: WireData, codec: Codec = codecOf(data)): ClientMessage {
  return validateClientMessage(parseWire(data, codec), codec);
}

export function decodeServerMessage(data: WireData, codec: Codec = codecOf(data)): ServerMessage {
  return validateServerMessage(parseWire(data, codec));
}

/** Size in bytes of a message as it travels (UTF-8 for text). */
export function wireSize(data: WireData): number {
  return typeof data === 'string' ? new TextEncoder().encode(data).byteLength : data.byteLength;
}

export { ProtocolError };
