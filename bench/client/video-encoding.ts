/**
 * The benchmark's frames as one video stream (`--codec vp8|vp9|h264|av1`): turned into a YUV4MPEG2 clip at
 * one size, then encoded once, before the run, by the gateway's own clip maker and ffmpeg (the binary the
 * gateway decodes with, so nothing else needs installing) the way a browser's realtime encoder would: no
 * B-frames, no hidden frames, a keyframe first and every `keyframeInterval` frames. Each encoded frame
 * becomes one input, sent as a `chunk` in order.
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { encodeClip, probeVideoDecoding } from '@sightline/gateway/video';
import type { VideoEncoding } from './args.ts';
import type { FrameInput } from './types.ts';

const run = promisify(execFile);
const MAX_BUFFER = 64 * 1024 * 1024;
/** The frame rate the clip is encoded for: a camera's, which the encoder's rate control assumes. */
export const VIDEO_FPS = 25;
/** A video picture keeps to even sides (4:2:0 chroma; libx264 refuses odd ones): the crop drops one row or column. */
const EVEN_SIDES = 'crop=trunc(iw/2)*2:trunc(ih/2)*2';

export class VideoInputError extends Error {
  override name = 'VideoInputError';
}

/** The ffmpeg the gateway would decode with: the npm-shipped one, a configured one, or the one on PATH. */
export async function videoFfmpeg(): Promise<string> {
  const decoding = await probeVideoDecoding();
  if (!decoding.available) throw new VideoInputError(`no ffmpeg to encode video with: ${decoding.reason}`);
  return decoding.ffmpeg.path;
}

async function ffmpeg(binary: string, args: string[], what: string): Promise<void> {
  try {
    await run(binary, ['-hide_banner', '-loglevel', 'error', '-y', ...args], { maxBuffer: MAX_BUFFER });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new VideoInputError(`ffmpeg could not ${what}: ${stderr || (error as Error).message}`, { cause: error });
  }
}

/** Width and height from a YUV4MPEG2 file's header line. */
export function y4mSize(header: string): { width: number; height: number } {
  const width = Number(/ W(\d+)/.exec(header)?.[1]);
  const height = Number(/ H(\d+)/.exec(header)?.[1]);
  if (!(width > 0 && height > 0)) throw new VideoInputError(`not a YUV4MPEG2 header: ${header.slice(0, 60)}`);
  return { width, height };
}

function readY4mSize(path: string): { width: number; height: number } {
  const head = readFileSync(path).subarray(0, 200).toString('latin1');
  return y4mSize(head.split('\n')[0] ?? '');
}

/** Images (already oriented and sized alike, PNG) as a clip: one frame each, in order. */
export async function clipFromImages(binary: string, pngs: readonly Uint8Array[], dir: string): Promise<string> {
  pngs.forEach((png, i) => writeFileSync(join(dir, `f${String(i).padStart(6, '0')}.png`), png));
  const out = join(dir, 'frames.y4m');
  await ffmpeg(
    binary,
    ['-framerate', String(VIDEO_FPS), '-i', join(dir, 'f%06d.png'), '-vf', EVEN_SIDES, '-pix_fmt', 'yuv420p', out],
    'turn the images into a clip',
  );
  return out;
}

/** The first `maxFrames` frames of a video file as a clip, covered and cropped to `resize` when given. */
export async function clipFromVideo(
  binary: string,
  path: string,
  maxFrames: number | undefined,
  resize: { width: number; height: number } | undefined,
  dir: string,
): Promise<string> {
  const out = join(dir, 'video.y4m');
  const scale = resize
    ? [`scale=${resize.width}:${resize.height}:force_original_aspect_ratio=increase`, `crop=${resize.width}:${resize.height}`]
    : [];
  const limit = maxFrames === undefined ? [] : ['-frames:v', String(maxFrames)];
  await ffmpeg(binary, ['-i', path, '-an', ...limit, '-vf', [...scale, EVEN_SIDES].join(','), '-pix_fmt', 'yuv420p', out], `read ${path}`);
  return out;
}

/** Encodes a clip as the chunks a browser's encoder would hand over; one input per frame, keyframes flagged. */
export async function encodeVideoInputs(
  binary: string,
  clip: string,
  encoding: VideoEncoding,
  options: { stem: string; maxFrames?: number | undefined },
): Promise<FrameInput[]> {
  const { width, height } = readY4mSize(clip);
  let chunks;
  try {
    chunks = await encodeClip({
      ffmpegPath: binary,
      source: clip,
      codec: encoding.codec,
      bitrateKbps: encoding.bitrateKbps,
      keyframeInterval: encoding.keyframeInterval,
      frames: options.maxFrames,
      mode: 'realtime',
    });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer | string }).stderr?.toString().trim();
    throw new VideoInputError(`ffmpeg could not encode ${encoding.codec}: ${stderr || (error as Error).message}`, { cause: error });
  }
  if (chunks.length === 0) throw new VideoInputError(`the ${encoding.codec} encoder produced no frame`);
  if (!chunks[0]!.key) throw new VideoInputError(`the ${encoding.codec} stream does not start with a keyframe`);
  return chunks.map((chunk, i) => ({
    name: `${options.stem}#${i}`,
    bytes: chunk.data,
    contentType: `video/${encoding.codec}`,
    width,
    height,
    video: { codec: encoding.codec, key: chunk.key },
  }));
}
