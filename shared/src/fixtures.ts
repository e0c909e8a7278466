/**
 * Real photos committed for tests, benchmarks and the e2e fake camera (licences in
 * fixtures/photos/LICENSES.md), the labels each model is known to find in them, and hand-made headers of
 * decompression bombs (the gateway's tests and the fuzz corpus both send them). Node only.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { crc32 } from 'node:zlib';

export const PHOTOS_DIR = fileURLToPath(new URL('../fixtures/photos/', import.meta.url));

/** photo file name -> model name -> labels expected; `a|b` means either label satisfies it. */
export type ExpectedLabels = Record<string, Record<string, string[]>>;

export function photoPath(name: string): string {
  return `${PHOTOS_DIR}${name}`;
}

export function readPhoto(name: string): Buffer {
  return readFileSync(photoPath(name));
}

export function expectedLabels(): ExpectedLabels {
  return JSON.parse(readFileSync(photoPath('expected.json'), 'utf8')) as ExpectedLabels;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/**
 * A few dozen bytes that claim to be a `width` x `height` RGB PNG: a decompression bomb as a header reader
 * sees it (50000 x 50000 would need 7.5 GB decoded).
 */
export function pngBombHeader(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.writeUInt8(8, 8); // bit depth
  ihdr.writeUInt8(2, 9); // colour type RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', Buffer.from([0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A JFIF header whose baseline SOF claims `width` x `height` (at most 65535 each), then EOI: no pixel data. */
export function jpegBombHeader(width: number, height: number): Buffer {
  const sof = Buffer.from([0xff, 0xc0, 0x00, 0x11, 0x08, 0, 0, 0, 0, 0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01]);
  sof.writeUInt16BE(height, 5);
  sof.writeUInt16BE(width, 7);
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, sof, Buffer.from([0xff, 0xd9])]);
}

/** An extended WebP (VP8X) header claiming `width` x `height` (at most 16384 each), no image data. */
export function webpBombHeader(width: number, height: number): Buffer {
  const vp8x = Buffer.alloc(18);
  vp8x.write('VP8X', 0, 'ascii');
  vp8x.writeUInt32LE(10, 4);
  vp8x.writeUIntLE(width - 1, 12, 3);
  vp8x.writeUIntLE(height - 1, 15, 3);
  const riff = Buffer.alloc(12);
  riff.write('RIFF', 0, 'ascii');
  riff.writeUInt32LE(4 + vp8x.length, 4);
  riff.write('WEBP', 8, 'ascii');
  return Buffer.concat([riff, vp8x]);
}
