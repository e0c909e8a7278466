/**
 * Whether a chunk's bytes are a keyframe, read from the bitstream's first header: a chunk the client
 * labels a keyframe but is not one would be fed to a decoder that has no reference frames, and come back
 * as garbage or an error several chunks later. Checked before feeding, where the codec allows it cheaply.
 */
import { NAL, nalUnits } from './annex-b.ts';
import type { VideoCodec } from './codecs.ts';

export type FrameKind = 'key' | 'delta' | 'unknown';

/** VP8 (RFC 6386 9.1): a 3-byte frame tag, bit 0 = 0 on keyframes, which then carry the start code 9d 01 2a. */
function vp8Kind(data: Uint8Array): FrameKind {
  if (data.length < 3) return 'unknown';
  if ((data[0]! & 1) === 1) return 'delta';
  return data.length >= 10 && data[3] === 0x9d && data[4] === 0x01 && data[5] === 0x2a ? 'key' : 'unknown';
}

/**
 * VP9 (uncompressed header, spec 6.2): frame_marker (2 bits = 2), profile (2 bits, low bit first), a
 * reserved bit in profile 3, show_existing_frame, frame_type (0 = key). In a superframe the keyframe comes
 * first, so the first frame's header decides.
 */
function vp9Kind(data: Uint8Array): FrameKind {
  if (data.length < 2) return 'unknown';
  const bit = (i: number) => (data[i >> 3]! >> (7 - (i & 7))) & 1;
  if (bit(0) !== 1 || bit(1) !== 0) return 'unknown';
  const profile = bit(2) | (bit(3) << 1);
  let at = profile === 3 ? 5 : 4;
  if (bit(at) === 1) return 'delta'; // show_existing_frame: a repeat of a decoded frame
  at++;
  return bit(at) === 0 ? 'key' : 'delta';
}

/** H.264: an access unit holding an IDR slice is a keyframe (WebCodecs' H.264 keyframes are IDR pictures). */
function h264Kind(data: Uint8Array): FrameKind {
  const units = nalUnits(data);
  if (units.length === 0) return 'unknown';
  if (units.some((unit) => unit.type === NAL.IDR)) return 'key';
  return units.some((unit) => unit.type === NAL.SLICE) ? 'delta' : 'unknown';
}

/** What the bytes say: `unknown` where the header cannot be read cheaply (AV1 needs the sequence header's state) or is malformed. */
export function frameKind(codec: VideoCodec, data: Uint8Array): FrameKind {
  switch (codec) {
    case 'vp8':
      return vp8Kind(data);
    case 'vp9':
      return vp9Kind(data);
    case 'h264':
      return h264Kind(data);
    case 'av1':
      return 'unknown';
  }
}
