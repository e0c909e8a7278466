/**
 * The large-image corpus of memory-under-limit.sh: valid 12-16 MP images in the encodings that cost the most
 * to decode (progressive 4:4:4 and CMYK JPEG, interlaced and 16-bit PNG, lossless WebP), a plain 12 MP phone
 * photo beside them, and images the gateway must refuse `too_large` (more pixels than its limit, or a decode
 * dearer than its per-frame cap). Made at run time with sharp from a committed photo, upscaled with the
 * nearest-neighbour kernel: the picture (a dog) stays detectable, and its blocks compress, so even 16-bit PNG
 * stays under the 10 MiB message limit. Files are kept in a folder and reused; each is checked after encoding
 * (size, channels, depth, interlace) so the corpus is what its names say.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp, { type Sharp } from 'sharp';
import { readPhoto } from '@sightline/shared/fixtures';

export interface CorpusImage {
  name: string;
  width: number;
  height: number;
  /**
   * What decoding it holds, bytes per pixel, from the per-encoding measurements in docs/RELIABILITY.md
   * (*Where the memory goes*): an independent statement of the gateway's budget, to judge its answers.
   */
  decodeBytesPerPixel: number;
  encode: (image: Sharp) => Sharp;
  /** Upscale the photo from this width (default: as it is, 640 px): coarser blocks compress better. */
  sourceWidth?: number;
  /** What sharp must read back from the file. */
  check: { channels: number; depth: 'uchar' | 'ushort'; progressive: boolean; space?: string };
}

const progressiveJpeg = (chroma: '4:2:0' | '4:4:4') => (i: Sharp) => i.jpeg({ quality: 90, progressive: true, chromaSubsampling: chroma });
const baselineJpeg = (i: Sharp) => i.jpeg({ quality: 90, progressive: false, chromaSubsampling: '4:2:0' });
const png = (interlaced: boolean) => (i: Sharp) => i.png({ progressive: interlaced, compressionLevel: 6 });

/** Interlaced PNG is decoded whole: 1.3 x bytes per pixel; progressive JPEG keeps 2 bytes a sample of every component. */
export const CORPUS: readonly CorpusImage[] = [
  {
    name: '12mp-baseline.jpg',
    width: 4032,
    height: 3024,
    decodeBytesPerPixel: 0.25,
    encode: baselineJpeg,
    check: { channels: 3, depth: 'uchar', progressive: false },
  },
  {
    name: '12mp-progressive-444.jpg',
    width: 4032,
    height: 3024,
    decodeBytesPerPixel: 6.25,
    encode: progressiveJpeg('4:4:4'),
    check: { channels: 3, depth: 'uchar', progressive: true },
  },
  {
    name: '16mp-progressive-444.jpg',
    width: 4096,
    height: 4096,
    decodeBytesPerPixel: 6.25,
    encode: progressiveJpeg('4:4:4'),
    check: { channels: 3, depth: 'uchar', progressive: true },
  },
  {
    name: '12mp-progressive-cmyk.jpg',
    width: 4032,
    height: 3024,
    decodeBytesPerPixel: 8.25,
    encode: (i) => progressiveJpeg('4:4:4')(i.toColourspace('cmyk')),
    check: { channels: 4, depth: 'uchar', progressive: true, space: 'cmyk' },
  },
  {
    name: '12mp-interlaced-rgb16.png',
    width: 4032,
    height: 3024,
    decodeBytesPerPixel: 1.3 * 6,
    encode: (i) => png(true)(i.toColourspace('rgb16')),
    check: { channels: 3, depth: 'ushort', progressive: true },
  },
  {
    name: '16mp-interlaced-rgba8.png',
    width: 4096,
    height: 4096,
    decodeBytesPerPixel: 1.3 * 4,
    encode: (i) => png(true)(i.ensureAlpha()),
    check: { channels: 4, depth: 'uchar', progressive: true },
  },
  {
    name: '16mp-interlaced-rgb16.png',
    width: 4000,
    height: 4000,
    decodeBytesPerPixel: 1.3 * 6,
    encode: (i) => png(true)(i.toColourspace('rgb16')),
    check: { channels: 3, depth: 'ushort', progressive: true },
  },
  {
    name: '16mp-rgb8.png',
    width: 4096,
    height: 4096,
    // Not interlaced: libvips streams ~2,048 rows, so the cost is 1.3 x 3 bytes x width x 2,048.
    decodeBytesPerPixel: (1.3 * 3 * 2048) / 4096,
    encode: png(false),
    check: { channels: 3, depth: 'uchar', progressive: false },
  },
  {
    name: '12mp-lossless.webp',
    width: 4032,
    height: 3024,
    decodeBytesPerPixel: 4,
    encode: (i) => i.webp({ lossless: true, effort: 1 }),
    check: { channels: 3, depth: 'uchar', progressive: false },
  },
  {
    name: '16mp-lossless.webp',
    width: 4096,
    height: 4096,
    decodeBytesPerPixel: 4,
    encode: (i) => i.webp({ lossless: true, effort: 1 }),
    check: { channels: 3, depth: 'uchar', progressive: false },
  },
  // Refused: a decode far dearer than a 128 MiB cap, and more pixels than 16 M (a 24 MP camera, a 48 MP phone's full resolution).
  {
    name: '16mp-interlaced-rgba16.png',
    width: 4096,
    height: 4096,
    decodeBytesPerPixel: 1.3 * 8,
    encode: (i) => png(true)(i.ensureAlpha().toColourspace('rgb16')),
    // From the full photo it would be 11.8 MiB, over the message limit: refused for its size, not its decode.
    sourceWidth: 320,
    check: { channels: 4, depth: 'ushort', progressive: true },
  },
  {
    name: '24mp-baseline.jpg',
    width: 6000,
    height: 4000,
    decodeBytesPerPixel: 0.25,
    encode: baselineJpeg,
    check: { channels: 3, depth: 'uchar', progressive: false },
  },
  {
    name: '48mp-progressive-420.jpg',
    width: 8064,
    height: 6048,
    decodeBytesPerPixel: 3.25,
    encode: progressiveJpeg('4:2:0'),
    check: { channels: 3, depth: 'uchar', progressive: true },
  },
];

/** Bump when an image's recipe changes, so kept files are made again. */
const CORPUS_VERSION = 2;

async function make(image: CorpusImage, photo: Buffer): Promise<Buffer> {
  const source = image.sourceWidth
    ? await sharp(photo)
        .resize(image.sourceWidth, Math.round((image.sourceWidth * 3) / 4), { fit: 'fill', kernel: 'nearest' })
        .toBuffer()
    : photo;
  const bytes = await image.encode(sharp(source).resize(image.width, image.height, { fit: 'fill', kernel: 'nearest' })).toBuffer();
  const meta = await sharp(bytes).metadata();
  const { check } = image;
  const wrong =
    meta.width !== image.width ||
    meta.height !== image.height ||
    meta.channels !== check.channels ||
    meta.depth !== check.depth ||
    Boolean(meta.isProgressive) !== check.progressive ||
    (check.space !== undefined && meta.space !== check.space);
  if (wrong) throw new Error(`${image.name}: encoded as ${JSON.stringify(meta)}, not as its recipe says`);
  return bytes;
}

/** Every image of the corpus, made into `dir` unless already there; returns the bytes by name. */
export async function loadCorpus(dir: string): Promise<Map<string, Buffer>> {
  const versioned = join(dir, `v${CORPUS_VERSION}`);
  mkdirSync(versioned, { recursive: true });
  const source = readPhoto('dog.jpg');
  const files = new Map<string, Buffer>();
  for (const image of CORPUS) {
    const path = join(versioned, image.name);
    if (!existsSync(path)) writeFileSync(path, await make(image, source));
    files.set(image.name, readFileSync(path));
  }
  return files;
}

/** A dog photo as a normal camera frame (JPEG or PNG, at a camera's size) for the warm-up. */
export function cameraFrame(width: number, height: number, format: 'jpeg' | 'png'): Promise<Buffer> {
  const image = sharp(readPhoto('dog.jpg')).resize(width, height, { fit: 'fill', kernel: 'nearest' });
  return (format === 'jpeg' ? baselineJpeg(image) : png(false)(image)).toBuffer();
}
