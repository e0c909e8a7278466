/**
 * `--clip`: fixture photos as a moving clip, the input that is fair to video and to JPEG alike. Each photo is
 * zoomed in and panned across for 2 s at 25 fps (the gateway's clip maker), so every frame differs from the
 * last, as a camera's do, and the scene changes every 2 s; the photos and the 2 s are the WebRTC benchmark's
 * clip's, so WebRTC rows beside these send the same pictures. JPEG codecs send its frames as JPEG; video
 * codecs encode it as one stream. Made by ffmpeg in a temporary folder before the run.
 */
import { join } from 'node:path';
import { makeSlideshow } from '@sightline/gateway/video';
import { PHOTOS_DIR } from '@sightline/shared/fixtures';
import { VIDEO_FPS, VideoInputError } from './video-encoding.ts';

export const CLIP_PHOTOS = ['dog.jpg', 'kite.jpg', 'horses.jpg', 'person.jpg', 'giraffe.jpg', 'coffee.jpg'] as const;
export const CLIP_SECONDS_PER_PHOTO = 2;
export const CLIP_FRAMES_PER_PHOTO = CLIP_SECONDS_PER_PHOTO * VIDEO_FPS;
export const CLIP_DEFAULT_SIZE = { width: 640, height: 480 } as const;

/** The clip's photos, in its order. */
export function clipPhotos(): string[] {
  return CLIP_PHOTOS.map((name) => join(PHOTOS_DIR, name));
}

/** Frames in the clip: every photo's share. */
export function clipFrameCount(): number {
  return CLIP_PHOTOS.length * CLIP_FRAMES_PER_PHOTO;
}

/** Writes the clip (YUV4MPEG2) into `dir` and returns its path; sides are rounded down to even numbers. */
export async function makeFixtureClip(ffmpegPath: string, dir: string, size: { width: number; height: number } = CLIP_DEFAULT_SIZE) {
  const width = size.width - (size.width % 2);
  const height = size.height - (size.height % 2);
  if (width < 16 || height < 16) throw new VideoInputError(`--clip needs a size of at least 16x16 (got ${size.width}x${size.height})`);
  const out = join(dir, `clip-${width}x${height}.y4m`);
  try {
    await makeSlideshow({ ffmpegPath, photos: clipPhotos(), out, width, height, fps: VIDEO_FPS, framesPerPhoto: CLIP_FRAMES_PER_PHOTO });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer | string }).stderr?.toString().trim();
    throw new VideoInputError(`ffmpeg could not make the clip: ${stderr || (error as Error).message}`, { cause: error });
  }
  return out;
}
