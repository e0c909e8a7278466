/**
 * How a frame is decoded, decided from its header alone:
 *
 * - `turbo`: a plain JPEG (no EXIF rotation) is decoded by libjpeg-turbo in the inference worker, at the
 *   largest DCT reduction M/8 (M = 1..8) that leaves every axis at least its size in the model input (no
 *   detail the model would see is discarded), when what is left to shrink is at most 1.5x: the worker then
 *   samples it bilinearly into the tensor. The DCT reduction is itself an antialiasing filter (it drops the
 *   frequencies the smaller size cannot hold). The dashboard's frames (about the input's size) decode at
 *   full scale; a 640x480 frame for the 300x300 SSD input at 5/8 (400x300), an 800x600 one at 4/8.
 * - `sharp-native`: PNG, WebP, rotated or refused JPEG up to 1.5x the input: libvips decodes at the
 *   image's own size, the worker resamples bilinearly.
 * - `sharp-resized`: anything that needs more shrinking: libvips' antialiased Lanczos-3 with shrink-on-load,
 *   straight to the content size.
 *
 * Why Lanczos beyond 1.5x (frames whose aspect keeps the DCT from getting close, such as 16:9 into the
 * square SSD input), measured on the fixture photos at four sizes and the e2e camera's frames:
 * bilinear from a larger frame aliases (a horse lost); scaling down further and enlarging again turned a
 * dog into a cat; even area averaging after a full-size decode, which matched Lanczos on every SSD photo,
 * read the e2e camera's dog as a cat and let BlazeFace see a face on the cat (0.78 against a 0.75
 * threshold; 0.71 after Lanczos). The model's borderline calls follow the filter, and the tests pin down
 * Lanczos's.
 */
import { letterboxPlacement, MAX_BILINEAR_SHRINK, shrinkInto, type Placement, type ResizeTarget } from '@sightline/shared/model';
import type { ImageHeader } from './image-header.ts';
import { DCT_SCALES, scaledSize, type DctScale } from './jpeg-turbo.ts';

export type SharpPlan = 'sharp-native' | 'sharp-resized';

/** A turbo plan names what libvips does with the frame if libjpeg-turbo refuses it (CMYK, 12-bit, damaged). */
export type DecodePlan =
  { kind: 'turbo'; scale: DctScale; placement: Placement; fallback: SharpPlan } | { kind: SharpPlan; placement: Placement };

/** The largest DCT reduction (smallest M/8) keeping both axes at least their size in the input (8/8 when none does). */
function dctScale(header: ImageHeader, placement: Placement): DctScale {
  for (const scale of DCT_SCALES) {
    const size = scaledSize(header.width, header.height, scale);
    if (size.width >= placement.contentWidth && size.height >= placement.contentHeight) return scale;
  }
  return 8;
}

export function planDecode(header: ImageHeader, target: ResizeTarget, options: { turbo: boolean }): DecodePlan {
  const placement = letterboxPlacement(header.width, header.height, target);
  const sharpPlan: SharpPlan = shrinkInto(header, placement) <= MAX_BILINEAR_SHRINK ? 'sharp-native' : 'sharp-resized';
  if (options.turbo && header.format === 'jpeg' && header.orientation === 1) {
    const scale = dctScale(header, placement);
    // Up to MAX_BILINEAR_SHRINK the worker samples bilinearly (the tensor builder's own limit); beyond, Lanczos.
    if (shrinkInto(scaledSize(header.width, header.height, scale), placement) <= MAX_BILINEAR_SHRINK)
      return { kind: 'turbo', scale, placement, fallback: sharpPlan };
  }
  return { kind: sharpPlan, placement };
}
