/**
 * Loads the images to send, once, before any frame goes out: files, a folder, or video frames (.y4m natively,
 * anything else through ffmpeg). Optional resize / JPEG re-encode happens here too, never during the run.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, extname, join } from 'node:path';
import sharp, { type Sharp } from 'sharp';
import { PHOTOS_DIR } from '@sightline/shared/fixtures';
import { DEFAULTS, type InputSource, type VideoEncoding } from './args.ts';
import { CLIP_DEFAULT_SIZE, makeFixtureClip } from './clip.ts';
import type { FrameInput } from './types.ts';
import { clipFromImages, clipFromVideo, encodeVideoInputs, VideoInputError, videoFfmpeg } from './video-encoding.ts';

export interface InputOptions {
  source: InputSource;
  resize?: { width: number; height: number } | undefined;
  quality?: number | undefined;
  /** A video codec: the frames are encoded as one stream, each frame a chunk. */
  video?: VideoEncoding | undefined;
}

const IMAGE_EXTENSIONS = new Set(['.jpg', '.jpeg', '.png', '.webp']);

export class InputError extends Error {
  override name = 'InputError';
}

/** Content-Type from the magic bytes; undefined for anything the gateway does not accept. */
export function sniffContentType(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) return 'image/png';
  if (
    bytes.length >= 12 &&
    String.fromCharCode(...bytes.subarray(0, 4)) === 'RIFF' &&
    String.fromCharCode(...bytes.subarray(8, 12)) === 'WEBP'
  ) {
    return 'image/webp';
  }
  return undefined;
}

function imageFilesIn(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && IMAGE_EXTENSIONS.has(extname(e.name).toLowerCase()))
    .map((e) => join(dir, e.name))
    .sort();
}

/** Re-encodes as JPEG (EXIF orientation applied first, since re-encoding drops the tag). */
async function reencode(
  image: Sharp,
  resize: InputOptions['resize'],
  quality: number,
): Promise<{ bytes: Uint8Array; width: number; height: number }> {
  let pipeline = image.rotate();
  if (resize) pipeline = pipeline.resize(resize.width, resize.height, { fit: 'cover', position: 'centre' });
  const { data, info } = await pipeline.jpeg({ quality }).toBuffer({ resolveWithObject: true });
  return { bytes: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
}

async function prepare(name: string, bytes: Uint8Array, options: InputOptions): Promise<FrameInput> {
  if (options.resize || options.quality !== undefined) {
    const out = await reencode(sharp(bytes), options.resize, options.quality ?? DEFAULTS.quality);
    return { name, bytes: out.bytes, contentType: 'image/jpeg', width: out.width, height: out.height };
  }
  const contentType = sniffContentType(bytes);
  if (!contentType) throw new InputError(`${name}: not a JPEG, PNG or WebP file`);
  const meta = await sharp(bytes).metadata();
  return { name, bytes, contentType, width: meta.width ?? 0, height: meta.height ?? 0 };
}

// ---------------------------------------------------------------------------------------------------------
// Video

export interface Y4mFrame {
  width: number;
  height: number;
  /** Interleaved RGB, 3 bytes per pixel. */
  rgb: Uint8Array;
}

function clamp(v: number): number {
  return v < 0 ? 0 : v > 255 ? 255 : v;
}

/**
 * Decodes a YUV4MPEG2 stream (4:2:0, 4:2:2, 4:4:4 or mono, 8 bit) to RGB frames using BT.601 limited range.
 * Reads at most `maxFrames` frames.
 */
export function parseY4m(data: Uint8Array, maxFrames: number): Y4mFrame[] {
  return [...iterateY4m(data, maxFrames)];
}

/** {@link parseY4m} one frame at a time: a long clip is never all RGB in memory at once. */
export function* iterateY4m(data: Uint8Array, maxFrames: number): Generator<Y4mFrame> {
  const headerEnd = data.indexOf(0x0a);
  if (headerEnd < 0) throw new InputError('y4m: no header line');
  const header = new TextDecoder().decode(data.subarray(0, headerEnd)).split(' ');
  if (header[0] !== 'YUV4MPEG2') throw new InputError('y4m: missing YUV4MPEG2 signature');
  let width = 0;
  let height = 0;
  let chroma = '420jpeg';
  for (const token of header.slice(1)) {
    if (token.startsWith('W')) width = Number(token.slice(1));
    else if (token.startsWith('H')) height = Number(token.slice(1));
    else if (token.startsWith('C')) chroma = token.slice(1);
  }
  if (!(width > 0 && height > 0)) throw new InputError('y4m: missing W/H in header');
  let cw: number;
  let ch: number;
  if (chroma.startsWith('420')) [cw, ch] = [Math.ceil(width / 2), Math.ceil(height / 2)];
  else if (chroma === '422') [cw, ch] = [Math.ceil(width / 2), height];
  else if (chroma === '444') [cw, ch] = [width, height];
  else if (chroma === 'mono') [cw, ch] = [0, 0];
  else throw new InputError(`y4m: unsupported colour space C${chroma} (8-bit 420/422/444/mono only)`);
  const ySize = width * height;
  const cSize = cw * ch;
  let count = 0;
  let pos = headerEnd + 1;
  while (count < maxFrames && pos < data.length) {
    const lineEnd = data.indexOf(0x0a, pos);
    if (lineEnd < 0) break;
    if (new TextDecoder().decode(data.subarray(pos, pos + 5)) !== 'FRAME') throw new InputError(`y4m: expected FRAME at byte ${pos}`);
    const start = lineEnd + 1;
    if (start + ySize + 2 * cSize > data.length) break; // truncated last frame
    const y = data.subarray(start, start + ySize);
    const u = data.subarray(start + ySize, start + ySize + cSize);
    const v = data.subarray(start + ySize + cSize, start + ySize + 2 * cSize);
    const rgb = new Uint8Array(ySize * 3);
    const sx = cw === 0 ? 0 : width / cw;
    const sy = ch === 0 ? 0 : height / ch;
    for (let row = 0; row < height; row++) {
      const crow = cw === 0 ? 0 : Math.floor(row / sy) * cw;
      for (let col = 0; col < width; col++) {
        const yy = 1.164 * (y[row * width + col]! - 16);
        let r = yy;
        let g = yy;
        let b = yy;
        if (cw !== 0) {
          const ci = crow + Math.floor(col / sx);
          const uu = u[ci]! - 128;
          const vv = v[ci]! - 128;
          r = yy + 1.596 * vv;
          g = yy - 0.392 * uu - 0.813 * vv;
          b = yy + 2.017 * uu;
        }
        const o = (row * width + col) * 3;
        rgb[o] = clamp(Math.round(r));
        rgb[o + 1] = clamp(Math.round(g));
        rgb[o + 2] = clamp(Math.round(b));
      }
    }
    count++;
    yield { width, height, rgb };
    pos = start + ySize + 2 * cSize;
  }
}

export function ffmpegAvailable(): boolean {
  const result = spawnSync('ffmpeg', ['-version'], { stdio: 'ignore' });
  return result.status === 0;
}

async function loadVideo(path: string, maxFrames: number, options: InputOptions): Promise<FrameInput[]> {
  const quality = options.quality ?? DEFAULTS.quality;
  const stem = basename(path);
  if (extname(path).toLowerCase() === '.y4m') {
    const inputs: FrameInput[] = [];
    for (const f of iterateY4m(readFileSync(path), maxFrames)) {
      const image = sharp(f.rgb, { raw: { width: f.width, height: f.height, channels: 3 } });
      const out = await reencode(image, options.resize, quality);
      inputs.push({ name: `${stem}#${inputs.length}`, bytes: out.bytes, contentType: 'image/jpeg', width: out.width, height: out.height });
    }
    if (inputs.length === 0) throw new InputError(`${path}: no complete frame`);
    return inputs;
  }
  if (!ffmpegAvailable()) {
    throw new InputError(
      `--video ${path}: ffmpeg was not found on PATH, so this video cannot be decoded. Install it ` +
        '(Debian/Ubuntu: apt-get install -y ffmpeg) or give a .y4m file, which is read without ffmpeg.',
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'sightline-frames-'));
  try {
    // Highest-quality JPEG out of ffmpeg; sharp then applies --resize / --quality like for any other input.
    const result = spawnSync(
      'ffmpeg',
      ['-hide_banner', '-loglevel', 'error', '-i', path, '-frames:v', String(maxFrames), '-q:v', '2', join(dir, 'f%06d.jpg')],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    if (result.status !== 0) throw new InputError(`ffmpeg failed on ${path}: ${result.stderr.toString().trim()}`);
    const files = imageFilesIn(dir);
    if (files.length === 0) throw new InputError(`ffmpeg extracted no frame from ${path}`);
    return Promise.all(
      files.map(async (file, i) => {
        const out = await reencode(sharp(readFileSync(file)), options.resize, quality);
        return { name: `${stem}#${i}`, bytes: out.bytes, contentType: 'image/jpeg', width: out.width, height: out.height };
      }),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function inputFiles(source: Extract<InputSource, { kind: 'image' | 'dir' | 'default' }>): string[] {
  if (source.kind === 'image') return [source.path];
  const dir = source.kind === 'dir' ? source.path : PHOTOS_DIR;
  const files = imageFilesIn(dir);
  if (files.length === 0) throw new InputError(`${dir}: no .jpg, .jpeg, .png or .webp file`);
  return files;
}

/** Runs `body` with a temporary folder that is gone afterwards, however it ended; ffmpeg's failures become input errors. */
async function withScratch<T>(body: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'sightline-video-'));
  try {
    return await body(dir);
  } catch (error) {
    if (error instanceof VideoInputError) throw new InputError(error.message, { cause: error });
    throw error;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Images as the frames of one video: oriented, sized alike (--resize, or the first image's size), in order.
 * One image is repeated for a keyframe interval: a still scene, as a camera on a tripod sends it.
 */
async function imagesAsVideo(files: readonly string[], options: InputOptions & { video: VideoEncoding }, dir: string, ffmpeg: string) {
  const pngs: Array<{ name: string; png: Uint8Array; width: number; height: number }> = [];
  for (const file of files) {
    let image = sharp(readFileSync(file)).rotate();
    if (options.resize) image = image.resize(options.resize.width, options.resize.height, { fit: 'cover', position: 'centre' });
    const { data, info } = await image.png().toBuffer({ resolveWithObject: true });
    pngs.push({ name: basename(file), png: data, width: info.width, height: info.height });
  }
  const sizes = new Set(pngs.map((p) => `${p.width}x${p.height}`));
  if (sizes.size > 1) {
    throw new InputError(`one video stream has one picture size, and these images have ${[...sizes].join(', ')}: give --resize WxH`);
  }
  const frames = pngs.length === 1 ? Array.from({ length: options.video.keyframeInterval }, () => pngs[0]!) : pngs;
  const clip = await clipFromImages(
    ffmpeg,
    frames.map((f) => f.png),
    dir,
  );
  const inputs = await encodeVideoInputs(ffmpeg, clip, options.video, { stem: 'frames' });
  return inputs.map((input, i) => ({ ...input, name: pngs.length === 1 ? `${frames[i]!.name}#${i}` : frames[i]!.name }));
}

async function loadVideoCodecInputs(options: InputOptions & { video: VideoEncoding }): Promise<FrameInput[]> {
  const { source } = options;
  return withScratch(async (dir) => {
    const ffmpeg = await videoFfmpeg();
    if (source.kind === 'clip') {
      const clip = await makeFixtureClip(ffmpeg, dir, options.resize ?? CLIP_DEFAULT_SIZE);
      return encodeVideoInputs(ffmpeg, clip, options.video, { stem: 'clip', maxFrames: source.maxFrames });
    }
    if (source.kind === 'video') {
      const asIs = extname(source.path).toLowerCase() === '.y4m' && options.resize === undefined;
      const clip = asIs ? source.path : await clipFromVideo(ffmpeg, source.path, source.maxFrames, options.resize, dir);
      return encodeVideoInputs(ffmpeg, clip, options.video, { stem: basename(source.path), maxFrames: source.maxFrames });
    }
    return imagesAsVideo(inputFiles(source), options, dir, ffmpeg);
  });
}

/** The clip's frames as images (JPEG at --quality, default 80), the same pictures a video codec would encode. */
function loadClipImages(maxFrames: number | undefined, options: InputOptions): Promise<FrameInput[]> {
  return withScratch(async (dir) => {
    const clip = await makeFixtureClip(await videoFfmpeg(), dir, options.resize ?? CLIP_DEFAULT_SIZE);
    const frames = await loadVideo(clip, maxFrames ?? Number.POSITIVE_INFINITY, { ...options, resize: undefined });
    return frames.map((frame, i) => ({ ...frame, name: `clip#${i}` }));
  });
}

/** Every frame the run will cycle through, encoded and ready to send. */
export async function loadInputs(options: InputOptions): Promise<FrameInput[]> {
  const { source, video } = options;
  if (video) return loadVideoCodecInputs({ ...options, video });
  if (source.kind === 'clip') return loadClipImages(source.maxFrames, options);
  if (source.kind === 'video') return loadVideo(source.path, source.maxFrames, options);
  const files = inputFiles(source);
  return Promise.all(files.map((file) => prepare(basename(file), readFileSync(file), options)));
}
