/** The images the reliability scenarios send: a 640x480 camera frame, and a large photo for slow HTTP requests. */
import { join } from 'node:path';
import sharp from 'sharp';
import { PHOTOS_DIR, readPhoto } from '@sightline/shared/fixtures';
import { loadInputs } from '../client/inputs.ts';
import type { FrameInput } from '../client/types.ts';

/** dog.jpg as a 640x480 JPEG (q80), the size of a dashboard camera frame. */
export async function cameraFrame(): Promise<FrameInput> {
  const [frame] = await loadInputs({
    source: { kind: 'image', path: join(PHOTOS_DIR, 'dog.jpg') },
    resize: { width: 640, height: 480 },
    quality: 80,
  });
  return frame!;
}

/**
 * A large PNG (PNG decodes without JPEG's shrink-on-load, so it keeps the gateway busy for a while), kept
 * under `maxBytes` (the gateway's message limit).
 */
export async function largeImage(maxBytes: number): Promise<{ bytes: Uint8Array; width: number; height: number; contentType: string }> {
  for (const width of [3200, 2800, 2400, 2000, 1600]) {
    const height = Math.round((width * 3) / 4);
    const data = await sharp(readPhoto('dog.jpg')).resize(width, height, { fit: 'fill' }).png({ compressionLevel: 1 }).toBuffer();
    if (data.length <= maxBytes)
      return { bytes: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width, height, contentType: 'image/png' };
  }
  throw new Error(`no PNG of the photo fits in ${maxBytes} bytes`);
}
