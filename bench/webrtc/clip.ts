/**
 * What the WebRTC benchmark sends: the fixture photos as a moving slideshow (the gateway's clip maker: each
 * photo zoomed and panned, so every frame differs from the last, as a camera's do), 640x480 at the sending
 * frame rate. The video track sends the clip itself (the sender's VP8 or H.264 encoder encodes it live); the
 * data channel sends the same frames as JPEG (q80, as the benchmark client re-encodes its inputs), one file
 * each. Made once per run in a temporary folder, removed by dispose().
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeSlideshow, probeVideoDecoding } from '@sightline/gateway/video';
import { photoPath } from '@sightline/shared/fixtures';
import { loadInputs } from '../client/inputs.ts';

export const CLIP_PHOTOS = ['dog.jpg', 'kite.jpg', 'horses.jpg', 'person.jpg', 'giraffe.jpg', 'coffee.jpg'] as const;
export const CLIP_WIDTH = 640;
export const CLIP_HEIGHT = 480;
/** Seconds each photo is on screen before the next. */
export const SECONDS_PER_PHOTO = 2;
const JPEG_QUALITY = 80;

export interface Clip {
  fps: number;
  /** The clip as YUV4MPEG2, what the video track reads. */
  y4m: string;
  /** Its frames as JPEG files (000000.jpg, ...), what the data channel sends; absent when not asked for. */
  jpegDir: string | undefined;
  frames: number;
  dispose(): void;
}

/** `jpegs: false` leaves the JPEG frames out (the video track alone needs none). */
export async function prepareClip(fps: number, { jpegs = true }: { jpegs?: boolean } = {}): Promise<Clip> {
  const decoding = await probeVideoDecoding();
  if (!decoding.available) throw new Error(`no ffmpeg to make the clip with: ${decoding.reason}`);
  const dir = mkdtempSync(join(tmpdir(), 'sightline-webrtc-clip-'));
  const dispose = () => rmSync(dir, { recursive: true, force: true });
  try {
    const y4m = join(dir, 'clip.y4m');
    const framesPerPhoto = Math.max(1, Math.round(fps * SECONDS_PER_PHOTO));
    await makeSlideshow({
      ffmpegPath: decoding.ffmpeg.path,
      photos: CLIP_PHOTOS.map((photo) => photoPath(photo)),
      out: y4m,
      width: CLIP_WIDTH,
      height: CLIP_HEIGHT,
      fps,
      framesPerPhoto,
    });
    const frames = framesPerPhoto * CLIP_PHOTOS.length;
    let jpegDir: string | undefined;
    if (jpegs) {
      const images = await loadInputs({ source: { kind: 'video', path: y4m, maxFrames: frames }, quality: JPEG_QUALITY });
      jpegDir = join(dir, 'jpeg');
      mkdirSync(jpegDir);
      images.forEach((image, i) => writeFileSync(join(jpegDir!, `${String(i).padStart(6, '0')}.jpg`), image.bytes));
    }
    return { fps, y4m, jpegDir, frames, dispose };
  } catch (error) {
    dispose();
    throw error;
  }
}
