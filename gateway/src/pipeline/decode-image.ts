/**
 * Image bytes -> RGB pixels with sharp, by one of two paths picked from the header (image-header.ts):
 *
 * - native size, for frames about the size of the model input or smaller (the dashboard's default
 *   frames): libvips only decodes, and input-tensor.ts resamples bilinearly, fused with the value
 *   conversion. Enlarging a 320x240 frame to 300x300 costs libvips twice the decode; the fused loop
 *   costs a fraction of it (docs/BENCHMARKS.md).
 * - resized by libvips, for anything larger: bilinear sampling without a low-pass filter aliases once
 *   an axis shrinks by much more than 1.5x, and measurably costs detections (a horse in person.jpg,
 *   a face found on a cat), so larger frames get libvips's antialiased Lanczos-3, decoded at reduced
 *   scale where sharp can (JPEG shrink-on-load from a 3x reduction, WebP scale-on-load).
 */
import sharp from 'sharp';
import { ProtocolError } from '@sightline/shared/validation';
import { readImageHeader, type ImageHeader } from './image-header.ts';

export interface ResizeTarget {
  width: number;
  height: number;
  resize: 'stretch' | 'letterbox';
}

/** Where the image lands inside the model input, in input pixels (letterbox leaves bars around it). */
export interface Placement {
  offsetX: number;
  offsetY: number;
  contentWidth: number;
  contentHeight: number;
}

/** Interleaved 8-bit RGB. */
export interface RgbImage {
  data: Uint8Array;
  width: number;
  height: number;
}

export interface DecodedImage {
  /** At the submitted image's own size, or already at the size of the placement's content area. */
  rgb: RgbImage;
  /** Size of the submitted image after EXIF orientation: the space boxes are reported in. */
  width: number;
  height: number;
  placement: Placement;
}

// Single-threaded libvips per image: the gateway decodes frames of many clients concurrently on the
// libuv pool, and inference already uses the cores.
sharp.concurrency(1);

export function letterboxPlacement(width: number, height: number, target: ResizeTarget): Placement {
  if (target.resize === 'stretch') {
    return { offsetX: 0, offsetY: 0, contentWidth: target.width, contentHeight: target.height };
  }
  const scale = Math.min(target.width / width, target.height / height);
  // A 1x600 or 3x2000 image still covers at least one input pixel across: rounding must not make it vanish.
  const contentWidth = Math.max(1, Math.round(width * scale));
  const contentHeight = Math.max(1, Math.round(height * scale));
  // sharp's `contain` centres the image, rounding the leading bar down
  return {
    offsetX: Math.floor((target.width - contentWidth) / 2),
    offsetY: Math.floor((target.height - contentHeight) / 2),
    contentWidth,
    contentHeight,
  };
}

/** The largest reduction bilinear sampling handles without a low-pass filter. */
export const MAX_BILINEAR_SHRINK = 1.5;

/** Whether the image is small enough to be decoded at its own size and resampled in input-tensor.ts. */
export function resampledAfterDecode(header: ImageHeader, target: ResizeTarget): boolean {
  const placement = letterboxPlacement(header.width, header.height, target);
  const shrink = Math.max(header.width / placement.contentWidth, header.height / placement.contentHeight);
  return shrink <= MAX_BILINEAR_SHRINK;
}

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

export async function decodeImage(bytes: Uint8Array, target: ResizeTarget, maxPixels: number): Promise<DecodedImage> {
  const header = readImageHeader(bytes, maxPixels);
  let decoded: DecodedImage;
  try {
    decoded = resampledAfterDecode(header, target)
      ? await decodeNative(bytes, target, maxPixels)
      : await decodeResized(bytes, header, target, maxPixels);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ProtocolError('bad_image', `image could not be decoded: ${reason}`);
  }
  if (decoded.rgb.data.length !== decoded.rgb.width * decoded.rgb.height * 3) {
    throw new ProtocolError('internal', `decoded ${decoded.rgb.data.length} bytes for ${decoded.rgb.width}x${decoded.rgb.height} RGB`);
  }
  return decoded;
}
