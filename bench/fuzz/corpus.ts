/**
 * The images and blobs the fuzz cases are cut from, made once before a run (sharp is asynchronous, the
 * case generator is not): real photos at odd sizes and in odd encodings, hand-made headers of
 * decompression bombs, files of other formats, and compression bombs for HTTP.
 */
import { deflateSync, gzipSync } from 'node:zlib';
import sharp, { type Sharp } from 'sharp';
import { readPhoto } from '@sightline/shared/fixtures';

export interface NamedImage {
  name: string;
  bytes: Uint8Array;
  contentType: string;
  /** The size a gateway must report, after EXIF orientation. */
  width: number;
  height: number;
}

export interface Corpus {
  /** A valid 160x120 JPEG: the cheap frame that proves a connection still works. */
  small: Uint8Array;
  /** A valid 320x240 JPEG to truncate, and where its entropy-coded data starts. */
  photo: Uint8Array;
  photoScanStart: number;
  /** Valid images a gateway must detect on (or refuse for a true reason such as load, never as bad images). */
  odd: NamedImage[];
  /** Files of formats the gateway does not take. */
  notImages: Array<{ name: string; bytes: Uint8Array }>;
  /** 64 MiB of zeros (or 4x the message limit, if larger), gzip- and deflate-compressed. */
  gzipBomb: Uint8Array;
  deflateBomb: Uint8Array;
  inflatedBytes: number;
}

const u8 = (buffer: Buffer): Uint8Array => new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);

/** Offset of the first byte after the JPEG's start-of-scan header: cutting before it leaves no image data at all. */
export function jpegScanStart(jpeg: Uint8Array): number {
  for (let i = 2; i + 3 < jpeg.length; i++) {
    if (jpeg[i] === 0xff && jpeg[i + 1] === 0xda) return i + 2 + ((jpeg[i + 2]! << 8) | jpeg[i + 3]!);
  }
  return jpeg.length;
}

async function encode(pipeline: Sharp, name: string, contentType: string): Promise<NamedImage> {
  const { data, info } = await pipeline.toBuffer({ resolveWithObject: true });
  return { name, bytes: u8(data), contentType, width: info.width, height: info.height };
}

/** Builds the corpus; `maxMessageBytes` sizes the compression bombs so they always inflate beyond the limit. */
export async function buildCorpus(maxMessageBytes: number): Promise<Corpus> {
  const dog = readPhoto('dog.jpg');
  const resized = (w: number, h: number) => sharp(dog).resize(w, h, { fit: 'fill' });
  const small = u8(await resized(160, 120).jpeg({ quality: 80 }).toBuffer());
  const photo = u8(await resized(320, 240).jpeg({ quality: 85 }).toBuffer());

  const thin = await Promise.all(
    (
      [
        [1, 600],
        [3, 2000],
        [600, 1],
        [2000, 3],
      ] as const
    ).map(([w, h]) => encode(resized(w, h).jpeg(), `${w}x${h} JPEG`, 'image/jpeg')),
  );
  const rotated = await resized(320, 240).jpeg().withMetadata({ orientation: 6 }).toBuffer();
  const odd: NamedImage[] = [
    ...thin,
    await encode(resized(2, 1000).png(), '2x1000 PNG', 'image/png'),
    await encode(resized(1, 1).png(), '1x1 PNG', 'image/png'),
    await encode(resized(2, 2).jpeg(), '2x2 JPEG', 'image/jpeg'),
    await encode(resized(320, 240).grayscale().jpeg(), 'greyscale JPEG', 'image/jpeg'),
    await encode(resized(320, 240).toColourspace('cmyk').jpeg(), 'CMYK JPEG', 'image/jpeg'),
    await encode(resized(320, 240).jpeg({ progressive: true }), 'progressive JPEG', 'image/jpeg'),
    await encode(resized(320, 240).jpeg({ chromaSubsampling: '4:4:4', quality: 95 }), '4:4:4 JPEG', 'image/jpeg'),
    await encode(resized(320, 240).ensureAlpha(0.5).png(), 'RGBA PNG', 'image/png'),
    await encode(resized(320, 240).png({ palette: true }), 'palette PNG', 'image/png'),
    await encode(resized(320, 240).toColourspace('rgb16').png(), '16-bit PNG', 'image/png'),
    await encode(resized(320, 240).grayscale().ensureAlpha(0.5).png(), 'grey+alpha PNG', 'image/png'),
    await encode(resized(320, 240).webp({ quality: 70 }), 'lossy WebP', 'image/webp'),
    await encode(resized(320, 240).webp({ lossless: true }), 'lossless WebP', 'image/webp'),
    // EXIF orientation 6: stored 320x240, shown (and reported) 240x320.
    { name: 'EXIF-rotated JPEG', bytes: u8(rotated), contentType: 'image/jpeg', width: 240, height: 320 },
  ];

  const ascii = (text: string) => u8(Buffer.from(text, 'latin1'));
  const gif = await sharp(dog).resize(32, 24).gif().toBuffer();
  const tiff = await sharp(dog).resize(32, 24).tiff().toBuffer();
  const notImages = [
    { name: 'GIF', bytes: u8(gif) },
    { name: 'TIFF', bytes: u8(tiff) },
    {
      name: 'BMP header',
      bytes: ascii('BM6\x00\x00\x00\x00\x00\x00\x006\x00\x00\x00(\x00\x00\x00\x10\x00\x00\x00\x10\x00\x00\x00\x01\x00\x18\x00'),
    },
    {
      name: 'SVG',
      bytes: ascii('<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><rect width="100" height="100"/></svg>'),
    },
    { name: 'PDF', bytes: ascii('%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n') },
    { name: 'HTML', bytes: ascii('<!doctype html><title>not an image</title>') },
    { name: 'ZIP', bytes: ascii('PK\x03\x04\x14\x00\x00\x00\x00\x00') },
    { name: 'ELF', bytes: ascii('\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00') },
    { name: 'HEIC', bytes: ascii('\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic') },
    { name: 'zeros', bytes: new Uint8Array(1024) },
    { name: 'one byte', bytes: new Uint8Array([0xff]) },
    { name: 'JPEG SOI only', bytes: new Uint8Array([0xff, 0xd8]) },
    { name: 'PNG signature only', bytes: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  ];

  const inflatedBytes = Math.max(64 * 1024 * 1024, 4 * maxMessageBytes);
  const zeros = Buffer.alloc(inflatedBytes);
  return {
    small,
    photo,
    photoScanStart: jpegScanStart(photo),
    odd,
    notImages,
    gzipBomb: u8(gzipSync(zeros, { level: 9 })),
    deflateBomb: u8(deflateSync(zeros, { level: 9 })),
    inflatedBytes,
  };
}
