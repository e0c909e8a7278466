/**
 * Image bytes -> RGB pixels at the model's input size, with sharp. The format is sniffed from magic
 * bytes, and an oversized image (a decompression bomb) is refused from its header before a single
 * pixel is decoded. Decoding and resizing are one libvips pipeline, so JPEG shrink-on-load decodes
 * large frames at reduced scale (measured here: it applies from a 4x reduction, e.g. 1080p -> 300).
 */
import sharp, { type Metadata } from 'sharp';
import { ProtocolError } from '@sightline/shared/validation';

export const ACCEPTED_FORMATS = ['jpeg', 'png', 'webp'] as const;

export interface ResizeTarget {
  width: number;
  height: number;
  resize: 'stretch' | 'letterbox';
}

/** Where the image landed inside the model input, in input pixels (letterbox leaves bars around it). */
export interface Placement {
  offsetX: number;
  offsetY: number;
  contentWidth: number;
  contentHeight: number;
}

export interface DecodedImage {
  /** Interleaved RGB, target.width x target.height x 3. */
  pixels: Buffer;
  /** Size of the submitted image after EXIF orientation. */
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
  const contentWidth = Math.round(width * scale);
  const contentHeight = Math.round(height * scale);
  // sharp's `contain` centres the image, rounding the leading bar down
  return {
    offsetX: Math.floor((target.width - contentWidth) / 2),
    offsetY: Math.floor((target.height - contentHeight) / 2),
    contentWidth,
    contentHeight,
  };
}

/** Format by magic bytes: refuses everything else before libvips sees it (SVG, TIFF, GIF, HEIF, ...). */
export function sniffFormat(bytes: Uint8Array): (typeof ACCEPTED_FORMATS)[number] | undefined {
  const at = (i: number) => bytes[i];
  if (at(0) === 0xff && at(1) === 0xd8 && at(2) === 0xff) return 'jpeg';
  if (at(0) === 0x89 && at(1) === 0x50 && at(2) === 0x4e && at(3) === 0x47) return 'png';
  const ascii = (from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to));
  if (bytes.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'webp';
  return undefined;
}

async function readHeader(bytes: Uint8Array): Promise<Metadata> {
  try {
    // Only the header is read here, so no pixel limit: the size check below gives the precise error.
    return await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch {
    throw new ProtocolError('bad_image', 'not a JPEG, PNG or WebP image');
  }
}

function decodePixels(bytes: Uint8Array, target: ResizeTarget, maxPixels: number): Promise<Buffer> {
  // limitInputPixels makes libvips refuse a bomb from its header too, before allocating anything.
  return sharp(bytes, { limitInputPixels: maxPixels, failOn: 'error' })
    .rotate()
    .resize(target.width, target.height, {
      fit: target.resize === 'stretch' ? 'fill' : 'contain',
      background: { r: 0, g: 0, b: 0 },
    })
    .removeAlpha()
    .toColourspace('srgb')
    .raw()
    .toBuffer();
}

export async function decodeImage(bytes: Uint8Array, target: ResizeTarget, maxPixels: number): Promise<DecodedImage> {
  const format = sniffFormat(bytes);
  if (!format) throw new ProtocolError('bad_image', 'not a JPEG, PNG or WebP image');
  // Every sharp call costs a fixed ~0.5-1 ms of thread hand-offs here, so the header read runs
  // alongside the decode instead of before it; the header still decides which error is reported.
  const [header, pixels] = await Promise.allSettled([readHeader(bytes), decodePixels(bytes, target, maxPixels)]);
  if (header.status === 'rejected') throw header.reason;
  const { width: rawWidth = 0, height: rawHeight = 0, orientation = 1 } = header.value;
  if (rawWidth <= 0 || rawHeight <= 0) throw new ProtocolError('bad_image', 'image has no size');
  if (rawWidth * rawHeight > maxPixels) {
    throw new ProtocolError(
      'too_large',
      `image is ${rawWidth}x${rawHeight} = ${rawWidth * rawHeight} pixels; the limit is ${maxPixels}`,
    );
  }
  if (pixels.status === 'rejected') {
    const reason = pixels.reason instanceof Error ? pixels.reason.message : String(pixels.reason);
    throw new ProtocolError('bad_image', `image could not be decoded: ${reason}`);
  }
  if (pixels.value.length !== target.width * target.height * 3) {
    throw new ProtocolError('internal', `decoded ${pixels.value.length} bytes, expected ${target.width * target.height * 3}`);
  }
  // EXIF orientations 5..8 are rotated by 90 degrees: the picture the user sees is height x width.
  const rotated = orientation >= 5;
  const width = rotated ? rawHeight : rawWidth;
  const height = rotated ? rawWidth : rawHeight;
  return { pixels: pixels.value, width, height, placement: letterboxPlacement(width, height, target) };
}
