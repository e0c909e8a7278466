/**
 * Image bytes -> RGB pixels at the model's input size, with sharp. The header is read first so an
 * oversized image (a decompression bomb) is refused before a single pixel is decoded. Decoding and
 * resizing are one libvips pipeline, which lets JPEG shrink-on-load decode at 1/2, 1/4 or 1/8 scale.
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

async function readHeader(bytes: Uint8Array): Promise<Metadata> {
  try {
    // Only the header is read here, so no pixel limit: the size check below gives the precise error.
    return await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch {
    throw new ProtocolError('bad_image', 'not a JPEG, PNG or WebP image');
  }
}

export async function decodeImage(bytes: Uint8Array, target: ResizeTarget, maxPixels: number): Promise<DecodedImage> {
  const header = await readHeader(bytes);
  if (!(ACCEPTED_FORMATS as readonly string[]).includes(header.format ?? '')) {
    throw new ProtocolError('bad_image', `unsupported image format ${header.format ?? 'unknown'}; send JPEG, PNG or WebP`);
  }
  const rawWidth = header.width ?? 0;
  const rawHeight = header.height ?? 0;
  if (rawWidth <= 0 || rawHeight <= 0) throw new ProtocolError('bad_image', 'image has no size');
  if (rawWidth * rawHeight > maxPixels) {
    throw new ProtocolError(
      'too_large',
      `image is ${rawWidth}x${rawHeight} = ${rawWidth * rawHeight} pixels; the limit is ${maxPixels}`,
    );
  }
  // EXIF orientations 5..8 are rotated by 90 degrees: the picture the user sees is height x width.
  const rotated = (header.orientation ?? 1) >= 5;
  const width = rotated ? rawHeight : rawWidth;
  const height = rotated ? rawWidth : rawHeight;

  try {
    const pixels = await sharp(bytes, { limitInputPixels: maxPixels, failOn: 'error' })
      .rotate()
      .resize(target.width, target.height, {
        fit: target.resize === 'stretch' ? 'fill' : 'contain',
        background: { r: 0, g: 0, b: 0 },
      })
      .removeAlpha()
      .toColourspace('srgb')
      .raw()
      .toBuffer();
    if (pixels.length !== target.width * target.height * 3) {
      throw new Error(`decoded ${pixels.length} bytes, expected ${target.width * target.height * 3}`);
    }
    return { pixels, width, height, placement: letterboxPlacement(width, height, target) };
  } catch (error) {
    throw new ProtocolError('bad_image', `image could not be decoded: ${error instanceof Error ? error.message : String(error)}`);
  }
}
