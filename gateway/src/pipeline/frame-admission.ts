/**
 * What is checked as a frame arrives, before it may take a place in the queue: its model exists, its
 * bytes are an image of an accepted format and size (the header alone, ~10 µs, no pixel decoded), and what
 * decoding it will cost in memory. So a decompression bomb is answered `too_large` on receipt, busy or
 * not, and never holds a queue place; and the scheduler can keep the pixels decoded at once within budget.
 */
import type { ResizeTarget } from '@sightline/shared/model';
import { planDecode, type DecodePlan } from './decode-plan.ts';
import { readImageHeader, type ImageHeader } from './image-header.ts';
import { scaledSize } from './jpeg-turbo.ts';

/**
 * Bytes held while a frame is decoded, by decoder: libjpeg-turbo writes RGB at the plan's DCT scale into
 * one buffer; libvips holds the whole decoded image (up to 4 bands) and the RGB copy sharp hands back, at
 * the image's size or, resized, at the content's (measured per frame size in docs/RELIABILITY.md). A JPEG
 * planned for libjpeg-turbo is priced at its libvips fallback too, whichever is more: the header does not
 * say whether libjpeg-turbo will take it (a CMYK JPEG goes to libvips whole).
 */
export function decodeMemoryBytes(header: ImageHeader, plan: DecodePlan): number {
  const pixels = header.width * header.height;
  const sharpBytes = (kind: 'sharp-native' | 'sharp-resized') =>
    kind === 'sharp-native' ? pixels * (4 + 3) : pixels * 4 + plan.placement.contentWidth * plan.placement.contentHeight * 3;
  if (plan.kind !== 'turbo') return sharpBytes(plan.kind);
  const { width, height } = scaledSize(header.width, header.height, plan.scale);
  return Math.max(width * height * 3, sharpBytes(plan.fallback));
}

export interface FrameAdmission {
  header: ImageHeader;
  /** Bytes decoding will hold (decodeMemoryBytes). */
  decodeBytes: number;
}

/** Reads the header (throws `bad_image` or `too_large`) and prices the decode the plan will do. */
export function admitImage(image: Uint8Array, input: ResizeTarget, options: { maxPixels: number; turbo: boolean }): FrameAdmission {
  const header = readImageHeader(image, options.maxPixels);
  return { header, decodeBytes: decodeMemoryBytes(header, planDecode(header, input, { turbo: options.turbo })) };
}

/** The largest decode a frame within `maxPixels` can cost: what one frame alone may hold of the memory budget. */
export function largestDecodeBytes(maxPixels: number): number {
  return maxPixels * (4 + 3);
}
