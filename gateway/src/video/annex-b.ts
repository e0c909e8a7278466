/**
 * H.264 in Annex B form: NAL units behind 00 00 01 / 00 00 00 01 start codes. WebCodecs hands the gateway
 * one access unit (one picture) per chunk; an encoder writing a raw `.h264` stream does not, so the clip
 * tools split it here.
 */

/** NAL unit types that matter here (ITU-T H.264 table 7-1). */
export const NAL = { SLICE: 1, IDR: 5, SEI: 6, SPS: 7, PPS: 8, AUD: 9 } as const;

export interface NalUnit {
  /** Offset of its start code. */
  start: number;
  end: number;
  type: number;
  /** first_mb_in_slice == 0 (the first bit of the slice header's ue(v) is 1): a slice that begins a picture. */
  firstSlice: boolean;
}

export function nalUnits(bytes: Uint8Array): NalUnit[] {
  const starts: Array<{ at: number; payload: number }> = [];
  for (let i = 0; i + 2 < bytes.length; i++) {
    if (bytes[i] === 0 && bytes[i + 1] === 0 && bytes[i + 2] === 1) {
      starts.push({ at: i > 0 && bytes[i - 1] === 0 ? i - 1 : i, payload: i + 3 });
      i += 2;
    }
  }
  return starts.map(({ at, payload }, k) => ({
    start: at,
    end: k + 1 < starts.length ? starts[k + 1]!.at : bytes.length,
    type: (bytes[payload] ?? 0) & 0x1f,
    firstSlice: ((bytes[payload + 1] ?? 0) & 0x80) !== 0,
  }));
}

/** An Annex B elementary stream -> its access units, each flagged when it holds an IDR picture. */
export function splitAccessUnits(stream: Uint8Array): Array<{ data: Uint8Array; key: boolean }> {
  const units: Array<{ start: number; end: number; key: boolean }> = [];
  let current: { start: number; end: number; key: boolean } | undefined;
  let hasPicture = false;
  for (const nal of nalUnits(stream)) {
    const isSlice = nal.type === NAL.SLICE || nal.type === NAL.IDR;
    const beginsUnit =
      nal.type === NAL.AUD || nal.type === NAL.SPS || nal.type === NAL.PPS || nal.type === NAL.SEI || (isSlice && nal.firstSlice);
    if (!current || (hasPicture && beginsUnit)) {
      if (current) units.push(current);
      current = { start: nal.start, end: nal.end, key: false };
      hasPicture = false;
    }
    current.end = nal.end;
    if (isSlice) hasPicture = true;
    if (nal.type === NAL.IDR) current.key = true;
  }
  if (current) units.push(current);
  return units.map(({ start, end, key }) => ({ data: stream.subarray(start, end), key }));
}
