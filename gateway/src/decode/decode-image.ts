/**
 * Image bytes -> RGB pixels with sharp, for what the JPEG fast path does not take (decode-plan.ts): PNG,
 * WebP, EXIF-rotated JPEG, frames far larger than the model input, JPEGs libjpeg-turbo refused.
 *
 * - native size, up to 1.5x the model input: libvips only decodes; the worker resamples bilinearly,
 *   fused with the value conversion.
 * - resized by libvips, for anything larger: bilinear sampling without a low-pass filter aliases once
 *   an axis shrinks by much more than 1.5x, and measurably costs detections (a horse in person.jpg,
 *   a face found on a cat), so larger frames get libvips's antialiased Lanczos-3, decoded at reduced
 *   scale where sharp can (JPEG shrink-on-load from a 3x reduction, WebP scale-on-load).
 */
import sharp from 'sharp';
import { letterboxPlacement, type Placement, type ResizeTarget, type RgbImage } from '@sightline/shared/model';
import { ProtocolError } from '@sightline/shared/validation';
import { planDecode, type SharpPlan } from './decode-plan.ts';
import { readImageHeader, type ImageHeader } from './image-header.ts';

export interface DecodedImage {
  /** At the submitted image's own size, or already at the size of the placement's content area. */
  rgb: RgbImage;
  /** Size of the submitted image after EXIF orientation: the space boxes are reported in. */
  width: number;
  height: number;
  placement: Placement;
}

// Single-threaded libvips per image: each inference worker decodes its own frame, and the other cores
// are busy with inference already (also sharp's own default on glibc, against fragmentation).
sharp.concurrency(1);
// No operation cache: frames never repeat, so nothing cached is reused, and libvips' cache holds decoder
// state beyond its own accounting (302 MB after one interlaced 16-bit PNG against a 50 MB limit; docs/RELIABILITY.md).
sharp.cache(false);

function openImage(bytes: Uint8Array, maxPixels: number) {
  // limitInputPixels repeats the header check inside libvips, so no path decodes a bomb.
  return sharp(bytes, { limitInputPixels: maxPixels, failOn: 'error' }).rotate();
}

async function decodeNative(bytes: Uint8Array, target: ResizeTarget, maxPixels: number): Promise<DecodedImage> {
  const { data, info } = await openImage(bytes, maxPixels).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  const rgb = { data, width: info.width, height: info.height };
  return { rgb, width: info.width, height: info.height, placement: letterboxPlacement(info.width, info.height, target) };
}

/** The size after EXIF orientation, which decides the letterbox. */
async function orientedSize(bytes: Uint8Array, header: ImageHeader): Promise<{ width: number; height: number }> {
  if (header.oriented) return header;
  // PNG and WebP can carry EXIF orientation too, and only libvips reads it there: one header read more.
  const { autoOrient } = await sharp(bytes).metadata();
  return autoOrient;
}

async function decodeResized(bytes: Uint8Array, header: ImageHeader, target: ResizeTarget, maxPixels: number): Promise<DecodedImage> {
  const { width, height } = await orientedSize(bytes, header);
  const placement = letterboxPlacement(width, height, target);
  // Resized to the content area only; input-tensor.ts adds the letterbox bars as on the native path.
  const data = await openImage(bytes, maxPixels)
    .resize(placement.contentWidth, placement.contentHeight, { fit: 'fill' })
    .removeAlpha()
    .toColourspace('srgb')
    .raw()
    .toBuffer();
  const rgb = { data, width: placement.contentWidth, height: placement.contentHeight };
  return { rgb, width, height, placement };
}

/** Decodes with sharp at the image's own size or resized to its place in the input, as the decode plan says. */
export async function decodeWithSharp(
  bytes: Uint8Array,
  header: ImageHeader,
  plan: SharpPlan,
  target: ResizeTarget,
  maxPixels: number,
): Promise<DecodedImage> {
  let decoded: DecodedImage;
  try {
    decoded =
      plan === 'sharp-native' ? await decodeNative(bytes, target, maxPixels) : await decodeResized(bytes, header, target, maxPixels);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ProtocolError('bad_image', `image could not be decoded: ${reason}`);
  }
  if (decoded.rgb.data.length !== decoded.rgb.width * decoded.rgb.height * 3) {
    throw new ProtocolError('internal', `decoded ${decoded.rgb.data.length} bytes for ${decoded.rgb.width}x${decoded.rgb.height} RGB`);
  }
  return decoded;
}

/** Header check and plan, then sharp: for callers that hold only the bytes. */
export function decodeImage(bytes: Uint8Array, target: ResizeTarget, maxPixels: number): Promise<DecodedImage> {
  const header = readImageHeader(bytes, maxPixels);
  const plan = planDecode(header, target, { turbo: false });
  return decodeWithSharp(bytes, header, plan.kind === 'turbo' ? plan.fallback : plan.kind, target, maxPixels);
}
