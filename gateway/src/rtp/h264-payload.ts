/**
 * H.264 RTP payloads (RFC 6184, packetization-mode 0 and 1) to Annex B NAL units: a single NAL unit is
 * copied, a STAP-A is split into its units, FU-A fragments are rejoined by the frame assembler (the
 * first fragment carries the rebuilt NAL header). A frame is a keyframe when it holds an IDR slice.
 */
const START_CODE = Uint8Array.of(0, 0, 0, 1);
const NAL_IDR = 5;
const NAL_STAP_A = 24;
const NAL_FU_A = 28;

export interface H264PayloadInfo {
  /** Annex B bytes this packet adds to its frame. */
  data: Uint8Array;
  /** The packet carries (the start of) an IDR slice. */
  idr: boolean;
  /** For FU-A: a middle or end fragment, which continues the previous packet's NAL unit. */
  continuesFragment: boolean;
}

export function parseH264Payload(payload: Uint8Array): H264PayloadInfo | undefined {
  if (payload.length < 1) return undefined;
  const type = payload[0]! & 0x1f;
  if (type >= 1 && type <= 23) {
    return { data: concat([START_CODE, payload]), idr: type === NAL_IDR, continuesFragment: false };
  }
  if (type === NAL_STAP_A) {
    const parts: Uint8Array[] = [];
    let idr = false;
    let offset = 1;
    while (offset + 2 <= payload.length) {
      const size = (payload[offset]! << 8) | payload[offset + 1]!;
      offset += 2;
      if (size === 0 || offset + size > payload.length) return undefined;
      const unit = payload.subarray(offset, offset + size);
      idr ||= (unit[0]! & 0x1f) === NAL_IDR;
      parts.push(START_CODE, unit);
      offset += size;
    }
    return parts.length ? { data: concat(parts), idr, continuesFragment: false } : undefined;
  }
  if (type === NAL_FU_A) {
    if (payload.length < 2) return undefined;
    const fuHeader = payload[1]!;
    const startBit = (fuHeader & 0x80) !== 0;
    const nalType = fuHeader & 0x1f;
    if (!startBit) return { data: payload.subarray(2), idr: false, continuesFragment: true };
    const header = (payload[0]! & 0xe0) | nalType;
    return { data: concat([START_CODE, Uint8Array.of(header), payload.subarray(2)]), idr: nalType === NAL_IDR, continuesFragment: false };
  }
  return undefined; // STAP-B, MTAP, FU-B: not in packetization-mode 1
}

export function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
