/**
 * The VP8 RTP payload descriptor (RFC 7741 section 4.2): where a packet's share of the frame starts, whether
 * it opens a frame, and whether that frame is a keyframe (the inverse key-frame bit of the VP8 frame tag,
 * RFC 6386 section 9.1, in the first byte of partition 0).
 */
export interface Vp8PayloadInfo {
  /** S bit with PID 0: the packet carries the first bytes of the frame. */
  frameStart: boolean;
  /** Set only on a frame's first packet. */
  keyframe: boolean;
  /** The VP8 bitstream bytes this packet carries. */
  data: Uint8Array;
}

export function parseVp8Payload(payload: Uint8Array): Vp8PayloadInfo | undefined {
  if (payload.length < 1) return undefined;
  const first = payload[0]!;
  const extended = (first & 0x80) !== 0;
  const start = (first & 0x10) !== 0;
  const partitionId = first & 0x0f;
  let offset = 1;
  if (extended) {
    if (payload.length < 2) return undefined;
    const x = payload[1]!;
    offset = 2;
    if (x & 0x80) {
      // PictureID: 7 or 15 bits (M flag).
      if (payload.length <= offset) return undefined;
      offset += payload[offset]! & 0x80 ? 2 : 1;
    }
    if (x & 0x40) offset += 1; // TL0PICIDX
    if (x & 0x30) offset += 1; // TID / KEYIDX share one byte
  }
  if (offset >= payload.length) return undefined;
  const data = payload.subarray(offset);
  const frameStart = start && partitionId === 0;
  return { frameStart, keyframe: frameStart && (data[0]! & 0x01) === 0, data };
}
