/**
 * What a frame's bytes say about themselves, read without decoding a pixel: the format (JPEG, PNG and
 * WebP only, by magic bytes), the stored size, and for a JPEG its frame header and whether its image data
 * begins at all (one walk of its segments, jpeg-segments.ts). A decompression bomb is refused here, before
 * libvips allocates anything, and the size picks the decode path (decode-plan.ts).
 */
import { imageSize } from 'image-size';
import { ProtocolError } from '@sightline/shared/validation';
import { readJpegHead, type JpegFrame } from './jpeg-segments.ts';

export type ImageFormat = 'jpeg' | 'png' | 'webp';

export interface ImageHeader {
  format: ImageFormat;
  /** Size as the user sees it where `oriented`: EXIF orientations 5..8 swap the stored width and height. */
  width: number;
  height: number;
  /**
   * Whether the EXIF orientation was read: it is read from JPEG only, while libvips also honours it in PNG
   * and WebP, so for those the size may still be the stored one.
   */
  oriented: boolean;
  /** EXIF orientation (1: as stored; 2..8 need a flip or a rotation); 1 where none was read. */
  orientation: number;
}

/** The header, and what the same read learnt that prices the decode (decode-cost.ts). */
export interface ImageInspection {
  header: ImageHeader;
  /** A JPEG's frame header: progressive or not, the components' sampling. */
  jpegFrame?: JpegFrame;
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

export function inspectImage(bytes: Uint8Array, maxPixels: number): ImageInspection {
  const format = sniffFormat(bytes);
  if (!format) throw new ProtocolError('bad_image', 'not a JPEG, PNG or WebP image');
  if (format === 'jpeg') return inspectJpeg(bytes, maxPixels);
  let size: ReturnType<typeof imageSize>;
  try {
    size = imageSize(bytes);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ProtocolError('bad_image', `unreadable ${format.toUpperCase()} header: ${reason}`);
  }
  const { width = 0, height = 0 } = size;
  checkSize(width, height, maxPixels);
  return { header: { format, width, height, oriented: false, orientation: 1 } };
}

export function readImageHeader(bytes: Uint8Array, maxPixels: number): ImageHeader {
  return inspectImage(bytes, maxPixels).header;
}

function inspectJpeg(bytes: Uint8Array, maxPixels: number): ImageInspection {
  const head = readJpegHead(bytes);
  if (!head.frame) {
    // Cut before its frame header, or no JPEG at all behind the magic bytes.
    if (!head.reachesScanData) throw new ProtocolError('bad_image', `JPEG ends before its image data (${bytes.length} bytes)`);
    throw new ProtocolError('bad_image', 'unreadable JPEG header: no frame header before the image data');
  }
  const { width, height } = head.frame;
  checkSize(width, height, maxPixels);
  // A JPEG cut before its image data holds nothing to decode: said now, not after a wait for a place.
  if (!head.reachesScanData) throw new ProtocolError('bad_image', `JPEG ends before its image data (${bytes.length} bytes)`);
  const rotated = head.orientation >= 5;
  return {
    header: {
      format: 'jpeg',
      width: rotated ? height : width,
      height: rotated ? width : height,
      oriented: true,
      orientation: head.orientation,
    },
    jpegFrame: head.frame,
  };
}

function checkSize(width: number, height: number, maxPixels: number): void {
  if (width <= 0 || height <= 0) throw new ProtocolError('bad_image', 'image has no size');
  if (width * height > maxPixels) {
    throw new ProtocolError('too_large', `image is ${width}x${height} = ${width * height} pixels; the limit is ${maxPixels}`);
  }
}
