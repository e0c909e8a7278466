/** RTP packets built byte by byte (RFC 3550, RFC 7741, RFC 6184) for the depacketizer tests. */
import { parseRtpPacket, type RtpPacket } from '../../../src/rtp/rtp-packet.ts';

export function rtp(fields: {
  seq: number;
  ts: number;
  marker?: boolean;
  pt?: number;
  payload: Uint8Array;
  padding?: number;
  extensionWords?: number;
}): Uint8Array {
  const ext = fields.extensionWords ?? 0;
  const header = new Uint8Array(12 + (ext ? 4 + 4 * ext : 0));
  const view = new DataView(header.buffer);
  header[0] = 0x80 | (fields.padding ? 0x20 : 0) | (ext ? 0x10 : 0);
  header[1] = (fields.marker ? 0x80 : 0) | (fields.pt ?? 96);
  view.setUint16(2, fields.seq & 0xffff);
  view.setUint32(4, fields.ts >>> 0);
  view.setUint32(8, 0x1234);
  if (ext) {
    view.setUint16(12, 0xbede);
    view.setUint16(14, ext);
  }
  const pad = fields.padding
    ? Uint8Array.from({ length: fields.padding }, (_, i) => (i === fields.padding! - 1 ? fields.padding! : 0))
    : new Uint8Array();
  const out = new Uint8Array(header.length + fields.payload.length + pad.length);
  out.set(header);
  out.set(fields.payload, header.length);
  out.set(pad, header.length + fields.payload.length);
  return out;
}

export const packet = (fields: Parameters<typeof rtp>[0]): RtpPacket => parseRtpPacket(rtp(fields))!;

/** One VP8 frame split into packets: descriptor with a 15-bit PictureID, S on the first. */
export function vp8Packets(seq: number, ts: number, frame: Uint8Array, perPacket = 4): RtpPacket[] {
  const out: RtpPacket[] = [];
  for (let offset = 0, i = 0; offset < frame.length; offset += perPacket, i++) {
    const descriptor = Uint8Array.of(0x80 | (offset === 0 ? 0x10 : 0), 0x80, 0x80 | 0x12, 0x34);
    const chunk = frame.subarray(offset, offset + perPacket);
    const payload = new Uint8Array(descriptor.length + chunk.length);
    payload.set(descriptor);
    payload.set(chunk, descriptor.length);
    out.push(packet({ seq: seq + i, ts, marker: offset + perPacket >= frame.length, payload }));
  }
  return out;
}

/** A VP8 frame whose tag says key (bit 0 clear) or delta, then filler bytes. */
export const vp8Frame = (key: boolean, length = 10, fill = 7) =>
  Uint8Array.from({ length }, (_, i) => (i === 0 ? (key ? 0x10 : 0x11) : fill));
