/** Test images: real photos re-encoded, and hand-made hostile inputs. */
import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import { readPhoto } from '@sightline/shared/fixtures';

export function photo(name: string): Buffer {
  return readPhoto(name);
}

export function reencode(name: string, format: 'png' | 'webp' | 'jpeg'): Promise<Buffer> {
  return sharp(readPhoto(name)).toFormat(format).toBuffer();
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
 * A few hundred bytes claiming to be a 50000 x 50000 RGB PNG: what a decompression bomb looks like
 * to the header reader. Decoding it would need 7.5 GB.
 */
export function pngBombHeader(width = 50_000, height = 50_000): Buffer {
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
