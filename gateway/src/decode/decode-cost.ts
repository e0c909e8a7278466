/**
 * What decoding an image will hold in memory, read from the bytes already received (no pixel decoded).
 * What a frame costs depends on its encoding far more than on its pixel count (measured per encoding in
 * docs/RELIABILITY.md, *Where the memory goes*): a 40 MP baseline JPEG decodes in 5 MB (libjpeg streams it,
 * shrinking on load), the same picture progressive 4:4:4 in 233 MB (every DCT coefficient is kept until the
 * last scan), interlaced 16-bit RGBA PNG in 366 MB. The factors below fit those measurements within about 3%
 * and are the same whichever decoder the plan picks (libjpeg-turbo in the worker buffers a progressive JPEG's
 * coefficients as libvips does).
 */
import type { ImageInspection } from './image-header.ts';
import type { JpegFrame } from './jpeg-segments.ts';

const MIB = 1024 * 1024;
/** What every decode holds besides the pixels (decoder state, row buffers). */
const FIXED_BYTES = 4 * MIB;
/** The measured factors, rounded up by this margin: the estimate must not fall short. */
const MARGIN = 1.35 / 1.3;

export interface DecodeCost {
  bytes: number;
  /** The encoding as read, for the refusal's message. */
  encoding: string;
}

/** JPEG: sequential streams (1/4 byte a pixel); progressive keeps 2 bytes a sample of every component. */
function jpegCost(frame: JpegFrame | undefined, pixels: number): DecodeCost {
  // No frame header read: the decoder will refuse it; priced as the costliest common case.
  if (!frame) return { bytes: pixels * 6.25, encoding: 'JPEG' };
  if (!frame.progressive) return { bytes: pixels * 0.25, encoding: 'sequential JPEG' };
  const hMax = Math.max(...frame.sampling.map(([h]) => h));
  const vMax = Math.max(...frame.sampling.map(([, v]) => v));
  const samples = frame.sampling.reduce((sum, [h, v]) => sum + (h * v) / (hMax * vMax), 0);
  return { bytes: pixels * (2 * samples + 0.25), encoding: `progressive JPEG, ${frame.sampling.length} components` };
}

/** PNG: libvips streams about 2,048 decoded rows at a time; an interlaced (Adam7) image is decoded whole. */
function pngCost(bytes: Uint8Array, width: number, height: number): DecodeCost {
  const depth = bytes[24] ?? 16;
  const colourType = bytes[25] ?? 6;
  const interlaced = bytes[28] === 1;
  const channels = colourType === 0 ? 1 : colourType === 2 ? 3 : colourType === 4 ? 2 : 4;
  const rows = interlaced ? height : Math.min(height, 2048);
  return {
    bytes: 1.3 * channels * (depth === 16 ? 2 : 1) * width * rows,
    encoding: `${interlaced ? 'interlaced ' : ''}${depth}-bit PNG, ${channels} channels`,
  };
}

/** WebP: lossy streams; lossless (VP8L) holds 4 bytes a pixel, an alpha plane (ALPH) about 1. */
function webpCost(bytes: Uint8Array, pixels: number): DecodeCost {
  const chunk = (at: number) => String.fromCharCode(bytes[at] ?? 0, bytes[at + 1] ?? 0, bytes[at + 2] ?? 0, bytes[at + 3] ?? 0);
  const first = chunk(12);
  if (first === 'VP8 ') return { bytes: pixels * 0.25, encoding: 'lossy WebP' };
  if (first === 'VP8X') {
    for (let i = 30; i + 8 < Math.min(bytes.length, 64 * 1024);) {
      const id = chunk(i);
      const size = (bytes[i + 4]! | (bytes[i + 5]! << 8) | (bytes[i + 6]! << 16) | (bytes[i + 7]! << 24)) >>> 0;
      if (id === 'VP8L') break;
      if (id === 'ALPH') return { bytes: pixels * 1.25, encoding: 'lossy WebP with alpha' };
      if (id === 'VP8 ') return { bytes: pixels * 0.25, encoding: 'lossy WebP' };
      i += 8 + size + (size & 1);
    }
  }
  return { bytes: pixels * 4, encoding: 'lossless WebP' };
}

/** The price of decoding `image`, from what inspecting its header already read (no second walk). */
export function decodeCost(image: Uint8Array, { header, jpegFrame }: ImageInspection): DecodeCost {
  const pixels = header.width * header.height;
  const base =
    header.format === 'jpeg'
      ? jpegCost(jpegFrame, pixels)
      : header.format === 'png'
        ? pngCost(image, header.width, header.height)
        : webpCost(image, pixels);
  return { bytes: Math.ceil(base.bytes * MARGIN + FIXED_BYTES), encoding: base.encoding };
}
