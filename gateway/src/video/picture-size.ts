/**
 * A keyframe's picture size, read from its bitstream: what a stream whose sender does not say its size (a
 * WebRTC video track) opens its decoder with. VP8 keyframes state it in their first 10 bytes (RFC 6386 9.1);
 * an H.264 keyframe carries a sequence parameter set, whose size fields sit behind a few Exp-Golomb codes
 * (ITU-T H.264 7.3.2.1.1). Undefined where the bytes do not say it.
 */
import { NAL, nalUnits } from './annex-b.ts';
import type { VideoCodec } from './codecs.ts';

export interface PictureSize {
  width: number;
  height: number;
}

function vp8Size(data: Uint8Array): PictureSize | undefined {
  if (data.length < 10 || (data[0]! & 1) !== 0 || data[3] !== 0x9d || data[4] !== 0x01 || data[5] !== 0x2a) return undefined;
  const width = (data[6]! | (data[7]! << 8)) & 0x3fff;
  const height = (data[8]! | (data[9]! << 8)) & 0x3fff;
  return width > 0 && height > 0 ? { width, height } : undefined;
}

/** Reads bits MSB first from an RBSP (emulation-prevention bytes removed). */
class BitReader {
  private at = 0;
  constructor(private readonly bytes: Uint8Array) {}
  bit(): number {
    const byte = this.bytes[this.at >> 3];
    if (byte === undefined) throw new RangeError('the parameter set ends early');
    const bit = (byte >> (7 - (this.at & 7))) & 1;
    this.at++;
    return bit;
  }
  bits(n: number): number {
    let value = 0;
    for (let i = 0; i < n; i++) value = value * 2 + this.bit();
    return value;
  }
  ue(): number {
    let zeros = 0;
    while (this.bit() === 0) if (++zeros > 31) throw new RangeError('bad Exp-Golomb code');
    return 2 ** zeros - 1 + this.bits(zeros);
  }
  se(): number {
    const code = this.ue();
    return code % 2 === 1 ? (code + 1) / 2 : -code / 2;
  }
}

/** The NAL payload without its emulation-prevention bytes (00 00 03 -> 00 00). */
function rbsp(payload: Uint8Array): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < payload.length; i++) {
    if (i >= 2 && payload[i] === 3 && payload[i - 1] === 0 && payload[i - 2] === 0) continue;
    out.push(payload[i]!);
  }
  return Uint8Array.from(out);
}

const HIGH_PROFILES = new Set([100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]);

function skipScalingList(reader: BitReader, size: number): void {
  let last = 8;
  let next = 8;
  for (let j = 0; j < size; j++) {
    if (next !== 0) next = (last + reader.se() + 256) % 256;
    last = next === 0 ? last : next;
  }
}

function spsSize(payload: Uint8Array): PictureSize | undefined {
  const reader = new BitReader(rbsp(payload));
  const profile = reader.bits(8);
  reader.bits(16); // constraint flags, level
  reader.ue(); // seq_parameter_set_id
  let chromaFormat = 1;
  if (HIGH_PROFILES.has(profile)) {
    chromaFormat = reader.ue();
    if (chromaFormat === 3) reader.bit(); // separate_colour_plane_flag
    reader.ue(); // bit_depth_luma_minus8
    reader.ue(); // bit_depth_chroma_minus8
    reader.bit(); // qpprime_y_zero_transform_bypass_flag
    if (reader.bit() === 1) {
      for (let i = 0; i < (chromaFormat !== 3 ? 8 : 12); i++) if (reader.bit() === 1) skipScalingList(reader, i < 6 ? 16 : 64);
    }
  }
  reader.ue(); // log2_max_frame_num_minus4
  const pocType = reader.ue();
  if (pocType === 0) reader.ue();
  else if (pocType === 1) {
    reader.bit();
    reader.se();
    reader.se();
    const cycle = reader.ue();
    for (let i = 0; i < cycle; i++) reader.se();
  }
  reader.ue(); // max_num_ref_frames
  reader.bit(); // gaps_in_frame_num_value_allowed_flag
  const widthMbs = reader.ue() + 1;
  const heightMapUnits = reader.ue() + 1;
  const frameMbsOnly = reader.bit();
  if (frameMbsOnly === 0) reader.bit(); // mb_adaptive_frame_field_flag
  reader.bit(); // direct_8x8_inference_flag
  let [left, right, top, bottom] = [0, 0, 0, 0];
  if (reader.bit() === 1) [left, right, top, bottom] = [reader.ue(), reader.ue(), reader.ue(), reader.ue()];
  const cropX = chromaFormat === 0 || chromaFormat === 3 ? 1 : 2;
  const cropY = (chromaFormat === 1 ? 2 : 1) * (2 - frameMbsOnly);
  const width = widthMbs * 16 - cropX * (left + right);
  const height = (2 - frameMbsOnly) * heightMapUnits * 16 - cropY * (top + bottom);
  return width > 0 && height > 0 ? { width, height } : undefined;
}

function h264Size(data: Uint8Array): PictureSize | undefined {
  const sps = nalUnits(data).find((unit) => unit.type === NAL.SPS);
  if (!sps) return undefined;
  // After the start code (3 or 4 bytes) comes the one-byte NAL header, then the parameter set.
  const header = data[sps.start + 2] === 1 ? sps.start + 3 : sps.start + 4;
  try {
    return spsSize(data.subarray(header + 1, sps.end));
  } catch {
    return undefined;
  }
}

export function pictureSize(codec: VideoCodec, keyframe: Uint8Array): PictureSize | undefined {
  if (codec === 'vp8') return vp8Size(keyframe);
  if (codec === 'h264') return h264Size(keyframe);
  return undefined;
}
