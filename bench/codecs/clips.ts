/**
 * The clips the codec benchmark runs, each as a YUV4MPEG2 file every encoder reads and its frames as RGB
 * (the uncompressed pictures whose detections are the ground truth):
 * - `slideshow`: six fixture photos panned and zoomed at 640x480, 25 fps, 50 frames each (the gateway's
 *   clip-maker, as bench:decode-video and the video tests make it): known content that moves every frame;
 * - a real video (real-video.ts, or a file given with --video), at its own size.
 */
import { execFile } from 'node:child_process';
import { openSync, readSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { makeSlideshow, referenceFrames } from '@sightline/gateway/video';
import { photoPath } from '@sightline/shared/fixtures';

const run = promisify(execFile);

export const SLIDESHOW = {
  photos: ['dog.jpg', 'kite.jpg', 'horses.jpg', 'person.jpg', 'giraffe.jpg', 'coffee.jpg'],
  width: 640,
  height: 480,
  fps: 25,
  framesPerPhoto: 50,
} as const;

export interface Clip {
  name: string;
  /** What it is, for the report. */
  title: string;
  /** The YUV4MPEG2 file (4:2:0) the encoders read. */
  source: string;
  width: number;
  height: number;
  /** Every frame as RGB24, width x height. */
  frames: Uint8Array[];
}

/** The slideshow's first `frames` frames (at most its 300), made in `dir`. */
export async function slideshowClip(ffmpegPath: string, dir: string, frames: number): Promise<Clip> {
  const { width, height, fps, framesPerPhoto } = SLIDESHOW;
  const photos = SLIDESHOW.photos.slice(0, Math.max(1, Math.ceil(frames / framesPerPhoto)));
  const source = join(dir, 'slideshow.y4m');
  await makeSlideshow({ ffmpegPath, photos: photos.map(photoPath), out: source, width, height, fps, framesPerPhoto });
  const rgb = await referenceFrames({ ffmpegPath, source, width, height, frames });
  return {
    name: 'slideshow',
    title: `fixture photos (${photos.join(', ')}) panned and zoomed, ${width}x${height}, ${fps} fps`,
    source,
    width,
    height,
    frames: rgb,
  };
}

/** Width and height from a YUV4MPEG2 file's header line (`YUV4MPEG2 W640 H272 F25:1 ...`). */
export function y4mSize(header: string): { width: number; height: number } {
  const line = header.split('\n')[0] ?? '';
  const width = Number(/ W(\d+)/.exec(line)?.[1]);
  const height = Number(/ H(\d+)/.exec(line)?.[1]);
  if (!line.startsWith('YUV4MPEG2') || !(width > 0) || !(height > 0)) throw new Error(`not a YUV4MPEG2 header: ${line.slice(0, 80)}`);
  return { width, height };
}

function readHeader(path: string): string {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(256);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.subarray(0, read).toString('latin1');
  } catch (error) {
    throw new Error(`cannot read ${path}`, { cause: error });
  } finally {
    closeSync(fd);
  }
}

/** A video file's first `frames` frames at its own size (even sides: 4:2:0 needs them), as a clip. */
export async function videoFileClip(options: {
  ffmpegPath: string;
  file: string;
  dir: string;
  name: string;
  title: string;
  frames: number;
}): Promise<Clip> {
  const { ffmpegPath, file, dir, name, title, frames } = options;
  const source = join(dir, `${name}.y4m`);
  await run(
    ffmpegPath,
    [
      '-hide_banner',
      '-loglevel',
      'error',
      '-y',
      '-i',
      file,
      '-an',
      '-frames:v',
      String(frames),
      '-vf',
      'scale=trunc(iw/2)*2:trunc(ih/2)*2',
      '-pix_fmt',
      'yuv420p',
      source,
    ],
    { maxBuffer: 16 << 20 },
  );
  const { width, height } = y4mSize(readHeader(source));
  const rgb = await referenceFrames({ ffmpegPath, source, width, height, frames });
  return { name, title: `${title}, ${width}x${height}`, source, width, height, frames: rgb };
}
