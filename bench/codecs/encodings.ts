/**
 * A clip's frames as each encoding the benchmark compares, with what encoding cost:
 * - `png`: lossless, the ground truth's frames (what the model sees uncompressed);
 * - `jpeg` at a quality: sharp (libjpeg-turbo, 4:2:0), one frame at a time, as the dashboard encodes a frame;
 * - a video codec at a bitrate: the gateway's clip-maker in realtime mode (WebCodecs' latency mode: no
 *   B-frames, no look-ahead, no hidden frames; a keyframe at the start and every `keyframeInterval` frames).
 *
 * Encode cost is CPU time per frame: this process's for sharp (which runs on libuv's threads), the ffmpeg
 * process's for video (read when it has been waited for). CPU time rather than wall time, since the
 * machine may be busy with other work.
 */
import sharp from 'sharp';
import { encodeClip, type VideoCodec } from '@sightline/gateway/video';
import type { Clip } from './clips.ts';
import { reapedChildrenCpuMs } from './process-usage.ts';

export type EncodingCodec = 'png' | 'jpeg' | VideoCodec;

export interface Encoding {
  codec: EncodingCodec;
  /** `lossless`, `q80`, `1000 kbit/s`. */
  setting: string;
  /** JPEG quality or video kbit/s; 0 for PNG. */
  level: number;
  /** One per frame, in order. */
  payloads: Uint8Array[];
  /** Which payloads are keyframes (every image is). */
  keys: boolean[];
  encodeCpuMsPerFrame: number;
}

export const isVideo = (codec: EncodingCodec): codec is VideoCodec => codec !== 'png' && codec !== 'jpeg';

/** Frames `start` to `end` (exclusive) of an encoding, as an encoding of their own. */
export function framesOf(encoding: Encoding, start: number, end: number): Encoding {
  return { ...encoding, payloads: encoding.payloads.slice(start, end), keys: encoding.keys.slice(start, end) };
}

function processCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

export async function encodeImages(clip: Clip, format: { png: true } | { jpegQuality: number }): Promise<Encoding> {
  const payloads: Uint8Array[] = [];
  const before = processCpuMs();
  for (const rgb of clip.frames) {
    const image = sharp(rgb, { raw: { width: clip.width, height: clip.height, channels: 3 } });
    // PNG at zlib level 1: lossless either way, and the truth's encoding time is not a figure.
    const encoded = 'png' in format ? image.png({ compressionLevel: 1 }) : image.jpeg({ quality: format.jpegQuality });
    payloads.push(new Uint8Array(await encoded.toBuffer()));
  }
  const cpu = processCpuMs() - before;
  return {
    codec: 'png' in format ? 'png' : 'jpeg',
    setting: 'png' in format ? 'lossless' : `q${format.jpegQuality}`,
    level: 'png' in format ? 0 : format.jpegQuality,
    payloads,
    keys: payloads.map(() => true),
    encodeCpuMsPerFrame: cpu / payloads.length,
  };
}

export async function encodeVideo(options: {
  ffmpegPath: string;
  clip: Clip;
  codec: VideoCodec;
  bitrateKbps: number;
  keyframeInterval: number;
}): Promise<Encoding> {
  const { ffmpegPath, clip, codec, bitrateKbps, keyframeInterval } = options;
  const before = reapedChildrenCpuMs();
  const chunks = await encodeClip({ ffmpegPath, source: clip.source, codec, bitrateKbps, keyframeInterval, frames: clip.frames.length });
  const cpu = reapedChildrenCpuMs() - before;
  // Detections are compared frame by frame: an encoder that skipped a frame would shift every later one.
  if (chunks.length !== clip.frames.length) {
    throw new Error(`${codec} at ${bitrateKbps} kbit/s gave ${chunks.length} chunks for ${clip.frames.length} frames`);
  }
  if (!chunks[0]?.key) throw new Error(`${codec} at ${bitrateKbps} kbit/s: the first chunk is not a keyframe`);
  return {
    codec,
    setting: `${bitrateKbps} kbit/s`,
    level: bitrateKbps,
    payloads: chunks.map((chunk) => chunk.data),
    keys: chunks.map((chunk) => chunk.key),
    encodeCpuMsPerFrame: cpu / chunks.length,
  };
}
