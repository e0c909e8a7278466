/**
 * How a frame is decoded, decided from its header alone:
 *
 * - `turbo`: a plain JPEG (no EXIF rotation) is decoded by libjpeg-turbo in the inference worker, at the
 *   largest of the 1/1, 1/2, 1/4, 1/8 DCT scales (the ones it runs in SIMD) that leaves every axis at
 *   least its size in the model input and needs no axis shrunk by more than 1.5x (bilinear sampling
 *   aliases beyond that). So the scaling discards no detail the model would see: measured on the fixture
 *   photos and the e2e camera frames, scaling further and enlarging again (a 640x480 frame to 320x240,
 *   then 300 rows) turned a dog into a cat, lost a horse and found a face on a cat where Lanczos did not.
 *   The worker resamples the decoded picture bilinearly into the tensor. In practice: the dashboard's
 *   frames (about the input's size) at full scale, and a letterboxed model's larger frames at 1/2 or less.
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

export type DecodePlan =
  { kind: 'turbo'; scale: DctScale; placement: Placement } | { kind: 'sharp-native' | 'sharp-resized'; placement: Placement };

/** Shrink factors left per axis after decoding at `size` (below 1: the axis is enlarged). */
function suits(size: { width: number; height: number }, placement: Placement, scale: DctScale): boolean {
  const x = size.width / placement.contentWidth;
  const y = size.height / placement.contentHeight;
  if (Math.max(x, y) > MAX_BILINEAR_SHRINK) return false;
  // At full size nothing was discarded: enlarging a small frame is what any decoder would do.
  return scale === 1 || Math.min(x, y) >= 1;
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
