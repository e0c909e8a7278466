/**
 * Turns a (possibly malformed) message value into what a fuzz case sends: a WebSocket message in either
 * codec, or an HTTP request. Values are encoded as given, never validated: that is the point.
 */
import { encode as msgpackEncode } from '@msgpack/msgpack';
import { DETECT_PATH, JSON_CONTENT_TYPE, MSGPACK_CONTENT_TYPE, type Codec } from '@sightline/shared/protocol';
import type { Channel, FuzzInput } from './fuzz-case.ts';

const utf8 = new TextEncoder();

/** JSON text of `value`, with byte arrays (the image) as Base64 as the JSON codec carries them. */
export function jsonText(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v));
}

export function encodeValue(value: unknown, codec: Codec): Uint8Array {
  return codec === 'json' ? utf8.encode(jsonText(value)) : msgpackEncode(value, { ignoreUndefined: true });
}

export function channelOf(codec: Codec): Extract<Channel, 'ws-binary' | 'ws-text'> {
  return codec === 'json' ? 'ws-text' : 'ws-binary';
}

/** A WebSocket message: binary for MessagePack, text for JSON. */
export function wsInput(codec: Codec, data: Uint8Array): FuzzInput {
  return { channel: channelOf(codec), data };
}

/** POST /api/detect with a body and headers as given (Accept JSON, so replies are readable as text). */
export function httpInput(
  body: Uint8Array,
  contentType: string | undefined,
  extra: { query?: string; headers?: Record<string, string> } = {},
): FuzzInput {
  const headers: Record<string, string> = { accept: JSON_CONTENT_TYPE, ...extra.headers };
  if (contentType !== undefined) headers['content-type'] = contentType;
  return { channel: 'http', method: 'POST', path: `${DETECT_PATH}${extra.query ?? ''}`, headers, body };
}

export function httpBody(value: unknown, codec: Codec): FuzzInput {
  return httpInput(encodeValue(value, codec), codec === 'json' ? JSON_CONTENT_TYPE : MSGPACK_CONTENT_TYPE);
}

/** `text` as UTF-8 bytes. */
export const textBytes = (text: string): Uint8Array => utf8.encode(text);
