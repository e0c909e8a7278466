/**
 * WebSocket at the byte level, for cases no WebSocket library would send: a hand-made upgrade request,
 * client frames built bit by bit (reserved bits, bad opcodes, missing masks), and a reader for the
 * gateway's frames that only needs to find its close code.
 */
import { randomBytes } from 'node:crypto';
import { PROTOCOL_QUERY_PARAM, PROTOCOL_VERSION, WS_PATH } from '@sightline/shared/protocol';

export function upgradeRequest(host: string): string {
  const key = randomBytes(16).toString('base64');
  return (
    `GET ${WS_PATH}?${PROTOCOL_QUERY_PARAM}=${PROTOCOL_VERSION} HTTP/1.1\r\nHost: ${host}\r\nUpgrade: websocket\r\n` +
    `Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${key}\r\n\r\n`
  );
}

export interface RawFrameOptions {
  fin?: boolean;
  /** RSV1..3 as a 3-bit number (0 unless an extension was agreed). */
  rsv?: number;
  opcode: number;
  /** Clients must mask; false sends the payload in clear. */
  masked?: boolean;
  /** Overrides the length field (a lie about the payload's size). */
  declaredLength?: bigint;
}

/** One WebSocket frame as a client would put it on the wire (masked with a fixed key unless told otherwise). */
export function rawFrame(payload: Uint8Array, options: RawFrameOptions): Uint8Array {
  const { fin = true, rsv = 0, opcode, masked = true } = options;
  const length = options.declaredLength ?? BigInt(payload.length);
  const head: number[] = [(fin ? 0x80 : 0) | ((rsv & 7) << 4) | (opcode & 0x0f)];
  const maskBit = masked ? 0x80 : 0;
  if (length < 126n) head.push(maskBit | Number(length));
  else if (length < 65_536n) head.push(maskBit | 126, Number(length >> 8n) & 0xff, Number(length) & 0xff);
  else {
    head.push(maskBit | 127);
    for (let shift = 56n; shift >= 0n; shift -= 8n) head.push(Number((length >> shift) & 0xffn));
  }
  const mask = [0x12, 0x34, 0x56, 0x78];
  if (masked) head.push(...mask);
  const body = masked ? payload.map((b, i) => b ^ mask[i % 4]!) : payload;
  const out = new Uint8Array(head.length + body.length);
  out.set(head);
  out.set(body, head.length);
  return out;
}

/** A close frame's payload: the code, then the reason. */
export function closePayload(code: number, reason = ''): Uint8Array {
  const text = new TextEncoder().encode(reason);
  const out = new Uint8Array(2 + text.length);
  out[0] = code >> 8;
  out[1] = code & 0xff;
  out.set(text, 2);
  return out;
}

export type ServerFrame = { opcode: number; payload: Uint8Array };

/** Splits unmasked server frames off the front of `buffer`; returns them and the bytes left over. */
export function readServerFrames(buffer: Uint8Array): { frames: ServerFrame[]; rest: Uint8Array } {
  const frames: ServerFrame[] = [];
  let at = 0;
  for (;;) {
    if (buffer.length - at < 2) break;
    const opcode = buffer[at]! & 0x0f;
    let length = buffer[at + 1]! & 0x7f;
    let header = 2;
    if (length === 126) {
      if (buffer.length - at < 4) break;
      length = (buffer[at + 2]! << 8) | buffer[at + 3]!;
      header = 4;
    } else if (length === 127) {
      if (buffer.length - at < 10) break;
      length = Number(new DataView(buffer.buffer, buffer.byteOffset + at + 2, 8).getBigUint64(0));
      header = 10;
    }
    if (buffer.length - at < header + length) break;
    frames.push({ opcode, payload: buffer.subarray(at + header, at + header + length) });
    at += header + length;
  }
  return { frames, rest: buffer.subarray(at) };
}

/** The code in a close frame's payload (1005, "no status", when it has none). */
export function closeCodeOf(payload: Uint8Array): number {
  return payload.length >= 2 ? (payload[0]! << 8) | payload[1]! : 1005;
}
