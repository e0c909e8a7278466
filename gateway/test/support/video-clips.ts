/**
 * The video decoder's test material: a moving clip made from the fixture photos, encoded by a real encoder
 * (the ffmpeg the decoder itself uses) as a browser would, with the source frames to compare against, and a
 * harness that feeds a stream decoder and records every outcome.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { photoPath } from '@sightline/shared/fixtures';
import type { ResizeTarget } from '@sightline/shared/model';
import {
  encodeClip,
  makeSlideshow,
  openVideoStream,
  referenceFrames,
  type DecodedVideoFrame,
  type EncodedChunk,
  type VideoCodec,
  type VideoDecodeError,
  type VideoDecoding,
  type VideoStreamDecoder,
  type StreamDecoderOptions,
} from '../../src/video/index.ts';

export const CLIP = { width: 640, height: 480, fps: 25, framesPerPhoto: 20, keyframeInterval: 25 } as const;
const PHOTOS = ['dog.jpg', 'kite.jpg', 'horses.jpg'];
export const CLIP_FRAMES = PHOTOS.length * CLIP.framesPerPhoto;

export interface ClipSet {
  dir: string;
  source: string;
  ffmpegPath: string;
  chunks(codec: VideoCodec): Promise<EncodedChunk[]>;
  /** The source frames at a size, scaled as the decoder scales. */
  reference(width: number, height: number): Promise<Uint8Array[]>;
  remove(): void;
}

/** The slideshow in a temporary folder; encodings and reference frames made on first use and kept. */
export async function makeClipSet(ffmpegPath: string): Promise<ClipSet> {
  const dir = mkdtempSync(join(tmpdir(), 'sightline-video-'));
  const source = join(dir, 'source.y4m');
  await makeSlideshow({ ffmpegPath, photos: PHOTOS.map(photoPath), out: source, ...CLIP });
  const encoded = new Map<VideoCodec, Promise<EncodedChunk[]>>();
  const references = new Map<string, Promise<Uint8Array[]>>();
  return {
    dir,
    source,
    ffmpegPath,
    chunks(codec) {
      if (!encoded.has(codec)) {
        encoded.set(
          codec,
          encodeClip({ ffmpegPath, source, codec, bitrateKbps: 1000, keyframeInterval: CLIP.keyframeInterval, mode: 'repeatable' }),
        );
      }
      return encoded.get(codec)!;
    },
    reference(width, height) {
      const key = `${width}x${height}`;
      if (!references.has(key)) references.set(key, referenceFrames({ ffmpegPath, source, width, height }));
      return references.get(key)!;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Every outcome a stream decoder reported, in order. */
export interface Recorded {
  decoder: VideoStreamDecoder;
  frames: DecodedVideoFrame[];
  errors: VideoDecodeError[];
  dropped: Array<{ chunkId: number; reason: string }>;
  /** Resolves once `count` outcomes (frames and errors) have come in. */
  outcomes(count: number): Promise<void>;
}

export function openRecorded(
  decoding: VideoDecoding,
  config: { codec: string; target: ResizeTarget; width?: number; height?: number } & Partial<StreamDecoderOptions>,
): Recorded {
  const frames: DecodedVideoFrame[] = [];
  const errors: VideoDecodeError[] = [];
  const dropped: Recorded['dropped'] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const settle = () => {
    for (const waiter of [...waiters]) {
      if (frames.length + errors.length >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };
  const opened = openVideoStream({
    width: CLIP.width,
    height: CLIP.height,
    maxPixels: 40_000_000,
    bufferedFrames: 1000,
    maxInFlight: 1000,
    ...config,
    decoding,
    onFrame: (frame) => {
      frames.push(frame);
      settle();
    },
    onError: (error) => {
      errors.push(error);
      settle();
    },
    onDropped: (frame, reason) => dropped.push({ chunkId: frame.chunkId, reason }),
  });
  if (!opened.ok) throw new Error(`could not open the stream: ${opened.error.message}`);
  return {
    decoder: opened.decoder,
    frames,
    errors,
    dropped,
    outcomes: (count) =>
      new Promise((resolve) => {
        waiters.push({ count, resolve });
        settle();
      }),
  };
}

/** Mean absolute difference per byte of two RGB images of one size. */
export function meanAbsDiff(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== b.length) throw new Error(`sizes differ: ${a.length} and ${b.length}`);
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
  return sum / a.length;
}

/** PSNR in dB of `a` against `b`. */
export function psnr(a: Uint8Array, b: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i]! - b[i]!) ** 2;
  const mse = sum / a.length;
  return mse === 0 ? Infinity : 10 * Math.log10((255 * 255) / mse);
}

/** True once `pid` names no process (kill(pid, 0) fails with ESRCH). */
export function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** Waits until `condition` holds, checking every 20 ms: for events that have no callback (a process gone). */
export async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}
