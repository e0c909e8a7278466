/**
 * Real frames through every stage before the first client: the sessions are already warm, but the
 * decoders, the JIT and the worker hand-off are not, and would make the first answers slow. A real photo
 * (the models package's own, `models/warm-up.jpg`), so the output decoders, NMS and box mapping see
 * detections; as JPEG at two sizes (libjpeg-turbo at full and at reduced scale) and as PNG (sharp), so
 * every decode path is compiled in every worker.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import type { Logger } from './logger.ts';
import type { FrameService } from './frames/frame-service.ts';

/** Beside the model folders, in the repository and in the production image alike (deploy/image/assemble.mjs). */
export const WARM_UP_PHOTO = fileURLToPath(new URL('../../models/warm-up.jpg', import.meta.url));

/** Warms every model up; one that fails (its remote engine not up yet) is skipped with a log line, never fatal. */
export async function warmUp(frames: FrameService, models: readonly string[], logger: Logger): Promise<void> {
  const photo = readFileSync(WARM_UP_PHOTO);
  const frame = (width: number, height: number, format: 'jpeg' | 'png') =>
    sharp(photo).resize(width, height, { fit: 'fill' }).toFormat(format).toBuffer();
  const images = await Promise.all([frame(320, 240, 'jpeg'), frame(640, 480, 'jpeg'), frame(320, 240, 'png')]);
  for (const model of models) {
    try {
      for (const image of images) {
        for (let i = 0; i < 3; i++) await frames.detectOnce(frames.admit({ image, model }), performance.now());
      }
    } catch (error) {
      logger.warn({ model, reason: error instanceof Error ? error.message : String(error) }, 'warm-up skipped');
    }
  }
}
