/**
 * How a frame is decoded, decided from its header alone:
 *
 * - `turbo`: a plain JPEG (no EXIF rotation) is decoded by libjpeg-turbo in the inference worker, at the
 *   largest of the 1/1, 1/2, 1/4, 1/8 DCT scales (the ones it runs in SIMD) after which
 *   - no axis needs shrinking by more than 1.5x (bilinear sampling aliases beyond that),
 *   - the axis that needs the most shrinking is still at least its size in the input (the scaling
 *     discards no detail the model would see), and
 *   - the other axis, where the input's aspect differs from the frame's, is enlarged again by at most
 *     1.25x (a 4:3 frame into a square input).
 *   Measured on the fixture photos: 640x480 at 1/2 into 300x300 finds what Lanczos finds on every photo;
 *   scaling further (a 640x424 photo to 212 rows, or 451x300 to below a letterboxed input) lost a horse
 *   and found a face on a cat. The worker resamples the decoded picture bilinearly into the tensor.
 * - `sharp-native`: anything else up to 1.5x the input (PNG, WebP, rotated JPEG): decoded by libvips at
 *   its own size, resampled in the worker.
 * - `sharp-resized`: larger than that (a 1080p frame into a 300x300 input): libvips' antialiased Lanczos-3
 *   with shrink-on-load, straight to the content size.
 */
import { letterboxPlacement, type Placement, type ResizeTarget } from '@sightline/shared/model';
import type { ImageHeader } from './image-header.ts';
import { DCT_SCALE_DENOMINATORS, scaledSize, type DctScale } from './jpeg-turbo.ts';

/** The most bilinear sampling may shrink an axis. */
export const MAX_BILINEAR_SHRINK = 1.5;
/** The most a DCT-scaled image may be enlarged again on an axis. */
export const MAX_ENLARGE_AFTER_SCALING = 1.25;

export type DecodePlan =
  { kind: 'turbo'; scale: DctScale; placement: Placement } | { kind: 'sharp-native' | 'sharp-resized'; placement: Placement };

/** Shrink factors left per axis after decoding at `size` (below 1: the axis is enlarged). */
function suits(size: { width: number; height: number }, placement: Placement, scale: DctScale): boolean {
  const x = size.width / placement.contentWidth;
  const y = size.height / placement.contentHeight;
  if (Math.max(x, y) > MAX_BILINEAR_SHRINK) return false;
  // At full size nothing was discarded: enlarging a small frame is what any decoder would do.
  if (scale === 1) return true;
  return Math.max(x, y) >= 1 && Math.min(x, y) >= 1 / MAX_ENLARGE_AFTER_SCALING;
}

export function planDecode(header: ImageHeader, target: ResizeTarget, options: { turbo: boolean }): DecodePlan {
  const placement = letterboxPlacement(header.width, header.height, target);
  if (options.turbo && header.format === 'jpeg' && header.orientation === 1) {
    for (const scale of DCT_SCALE_DENOMINATORS) {
      if (suits(scaledSize(header.width, header.height, scale), placement, scale)) return { kind: 'turbo', scale, placement };
    }
  }
  const shrink = Math.max(header.width / placement.contentWidth, header.height / placement.contentHeight);
  return { kind: shrink <= MAX_BILINEAR_SHRINK ? 'sharp-native' : 'sharp-resized', placement };
}
