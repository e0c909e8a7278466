/**
 * The WebCodecs configuration of each video codec, for a realtime stream the gateway decodes frame by frame:
 * realtime latency mode (no look-ahead, one chunk out per frame in), no B-frames (H.264 constrained baseline,
 * which has none; VP8, VP9 and AV1 reorder nothing in realtime mode), H.264 as Annex B (start codes, SPS and
 * PPS with every keyframe: what the gateway's decoder reads), the codec string's level large enough for the
 * picture. Pure, so the strings are unit-tested.
 */
import type { VideoCodec } from '@sightline/shared/protocol';
import type { Size } from '../capture/frame-size.ts';

/** 4:2:0 encoders want even sides: the frame is scaled to the nearest even size at or below. */
export function evenSize({ width, height }: Size): Size {
  return { width: Math.max(2, width - (width % 2)), height: Math.max(2, height - (height % 2)) };
}

/**
 * H.264 constrained baseline (no B-frames), at level 3.1 (what WebRTC offers by default: up to 1280x720) or
 * the lowest level above it whose frame size (in macroblocks) holds the picture.
 */
export function h264CodecString({ width, height }: Size): string {
  const macroblocks = Math.ceil(width / 16) * Math.ceil(height / 16);
  const levels: [number, string][] = [
    [3600, '1f'], // 3.1: 1280x720
    [8192, '28'], // 4.0: 1920x1080
    [22_080, '32'], // 5.0
    [36_864, '33'], // 5.1: 4096x2304
  ];
  const level = levels.find(([limit]) => macroblocks <= limit)?.[1] ?? '34';
  return `avc1.42e0${level}`;
}

/** VP9 profile 0, 8 bits, level 4.0 up to 2048x1152 and 5.0 beyond. */
export function vp9CodecString({ width, height }: Size): string {
  return `vp09.00.${width * height <= 2_228_224 ? '40' : '50'}.08`;
}

/** AV1 main profile, 8 bits, the level (seq_level_idx) whose picture size holds the picture. */
export function av1CodecString({ width, height }: Size): string {
  const pixels = width * height;
  const levels: [number, string][] = [
    [665_856, '04'], // 3.0
    [1_065_024, '05'], // 3.1: 1280x720
    [2_359_296, '08'], // 4.0: 1920x1080
  ];
  const level = levels.find(([limit]) => pixels <= limit)?.[1] ?? '12';
  return `av01.0.${level}M.08`;
}

export function webCodecsString(codec: VideoCodec, size: Size): string {
  switch (codec) {
    case 'vp8':
      return 'vp8';
    case 'vp9':
      return vp9CodecString(size);
    case 'h264':
      return h264CodecString(size);
    case 'av1':
      return av1CodecString(size);
  }
}

export function videoEncoderConfig(codec: VideoCodec, size: Size, bitrateKbps: number): VideoEncoderConfig {
  const { width, height } = evenSize(size);
  return {
    codec: webCodecsString(codec, { width, height }),
    width,
    height,
    bitrate: bitrateKbps * 1000,
    bitrateMode: 'variable',
    latencyMode: 'realtime',
    ...(codec === 'h264' ? { avc: { format: 'annexb' } } : {}),
  };
}
