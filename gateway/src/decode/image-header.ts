/**
 * What a frame's bytes say about themselves, read without decoding a pixel: the format (JPEG, PNG and
 * WebP only, by magic bytes), the stored size, and for a JPEG whether its image data begins at all. A decompression bomb is refused here, before libvips
 * allocates anything, and the size picks the decode path (decode-image.ts).
 */
import { imageSize } from 'image-size';
import { ProtocolError } from '@sightline/shared/validation';
import { reachesScanData } from './jpeg-segments.ts';

export type ImageFormat = 'jpeg' | 'png' | 'webp';

export interface ImageHeader {
  format: ImageFormat;
  /** Size as the user sees it where `oriented`: EXIF orientations 5..8 swap the stored width and height. */
  width: number;
  height: number;
  /**
   * Whether the EXIF orientation was read: image-size reads it from JPEG only, while libvips also
   * honours it in PNG and WebP, so for those the size may still be the stored one.
   */
  oriented: boolean;
  /** EXIF orientation (1: as stored; 2..8 need a flip or a rotation); 1 where none was read. */
  orientation: number;
}

/** Format by magic bytes: refuses everything else before any parser sees it (SVG, TIFF, GIF, HEIF, ...). */
export function sniffFormat(bytes: Uint8Array): ImageFormat | undefined {
  const at = (i: number) => bytes[i];
  if (at(0) === 0xff && at(1) === 0xd8 && at(2) === 0xff) return 'jpeg';
  if (at(0) === 0x89 && at(1) === 0x50 && at(2) === 0x4e && at(3) === 0x47) return 'png';
  const ascii = (from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to));
  if (bytes.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'webp';
  return undefined;
}

export function readImageHeader(bytes: Uint8Array, maxPixels: number): ImageHeader {
  const format = sniffFormat(bytes);
  if (!format) throw new ProtocolError('bad_image', 'not a JPEG, PNG or WebP image');
  let size: ReturnType<typeof imageSize>;
  try {
    size = imageSize(bytes);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ProtocolError('bad_image', `unreadable ${format.toUpperCase()} header: ${reason}`);
  }
  const { width = 0, height = 0, orientation = 1 } = size;
  if (width <= 0 || height <= 0) throw new ProtocolError('bad_image', 'image has no size');
  if (width * height > maxPixels) {
    throw new ProtocolError('too_large', `image is ${width}x${height} = ${width * height} pixels; the limit is ${maxPixels}`);
  }
  // A JPEG cut before its image data holds nothing to decode: said now, not after a wait for a place.
  if (format === 'jpeg' && !reachesScanData(bytes))
    throw new ProtocolError('bad_image', `JPEG ends before its image data (${bytes.length} bytes)`);
  const rotated = orientation >= 5;
  return { format, width: rotated ? height : width, height: rotated ? width : height, oriented: format === 'jpeg', orientation };
}
