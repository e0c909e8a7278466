/**
 * The fixed RTP header (RFC 3550 section 5.1) of one packet as the stack hands it over, already decrypted:
 * enough to order packets, group them into frames and find the codec payload. RTCP shares the port
 * (rtcp-mux) and is told apart by its packet type (RFC 5761 section 4).
 */
export interface RtpPacket {
  payloadType: number;
  sequenceNumber: number;
  timestamp: number;
  ssrc: number;
  marker: boolean;
  /** The codec payload: header, CSRCs, extension and padding removed. Empty for a padding-only packet. */
  payload: Uint8Array;
}

/** RTCP packet types 192-223 land on payload types 64-95 when read as RTP. */
export function isRtcp(packet: Uint8Array): boolean {
  return packet.length >= 2 && packet[1]! >= 192 && packet[1]! <= 223;
}

/** The packet's header and payload, or undefined for anything that is not RTP version 2 or is cut short. */
export function parseRtpPacket(packet: Uint8Array): RtpPacket | undefined {
  if (packet.length < 12 || packet[0]! >> 6 !== 2 || isRtcp(packet)) return undefined;
  const view = new DataView(packet.buffer, packet.byteOffset, packet.byteLength);
  const padding = (packet[0]! & 0x20) !== 0;
  const hasExtension = (packet[0]! & 0x10) !== 0;
  const csrcCount = packet[0]! & 0x0f;
  let offset = 12 + 4 * csrcCount;
  if (hasExtension) {
    if (packet.length < offset + 4) return undefined;
    offset += 4 + 4 * view.getUint16(offset + 2);
  }
  let end = packet.length;
  if (padding) end -= packet[packet.length - 1]!;
  if (offset > end) return undefined;
  return {
    payloadType: packet[1]! & 0x7f,
    marker: (packet[1]! & 0x80) !== 0,
    sequenceNumber: view.getUint16(2),
    timestamp: view.getUint32(4),
    ssrc: view.getUint32(8),
    payload: packet.subarray(offset, end),
  };
}

/** a - b in 16-bit sequence space: positive when a is after b (wrap-around included). */
export function sequenceDelta(a: number, b: number): number {
  const d = (a - b) & 0xffff;
  return d >= 0x8000 ? d - 0x10000 : d;
}
