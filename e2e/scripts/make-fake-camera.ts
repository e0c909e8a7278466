/**
 * Makes the fake webcam videos Chromium plays through `--use-file-for-fake-video-capture`: a real photo
 * from shared/fixtures/photos, gently panned and zoomed so the boxes visibly follow, written as a raw
 * Y4M (YUV4MPEG2, I420) file by hand.
 *
 *   node --experimental-strip-types scripts/make-fake-camera.ts [outDir]   (or via globalSetup)
 *
 * The motion is a closed loop (cosine easing, starts and ends on the full picture), so Chrome's looping
 * of the file does not jump. The crop never goes below ZOOM_MIN of the picture and pans only into the
 * margin the zoom frees, so every object the fixture is known for stays in view and detectable.
 */
import { mkdirSync, openSync, writeSync, closeSync, statSync, renameSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';

export const WIDTH = 640;
export const HEIGHT = 480;

export interface FakeCameraSpec {
  /** Output file name (inside outDir). */
  file: string;
  /** Photo under shared/fixtures/photos. */
  photo: string;
  /** How the photo is fitted into 640x480 before the motion: crop to fill, or letterbox. */
  fit: 'cover' | 'contain';
  fps: number;
  frames: number;
  /** Smallest crop (share of the frame) at the deepest point of the zoom, e.g. 0.9. */
  zoomMin: number;
  /** Horizontal/vertical pan as a share of the margin the zoom frees: -1..1. */
  panX: number;
  panY: number;
}

export const FAKE_CAMERAS = {
  /** dog.jpg (bicycle, dog, truck): slow 8 % zoom drifting left and up, 2.4 s loop at 15 fps. SSDLite finds the dog in every frame at 640 px; at 320 px it mostly calls it a cat, so tests that need dog send native-size frames. */
  dog: { file: 'fake-camera-dog.y4m', photo: 'dog.jpg', fit: 'cover', fps: 15, frames: 36, zoomMin: 0.92, panX: -0.8, panY: -0.6 },
  /** The dog camera at 30 fps, for measuring whether the dashboard keeps a 30 fps video smooth (scripts/measure-rendering.ts). */
  dog30: { file: 'fake-camera-dog-30fps.y4m', photo: 'dog.jpg', fit: 'cover', fps: 30, frames: 72, zoomMin: 0.92, panX: -0.8, panY: -0.6 },
  /** astronaut.jpg (one face) letterboxed into 4:3: slow 12 % zoom drifting left. */
  astronaut: {
    file: 'fake-camera-astronaut.y4m',
    photo: 'astronaut.jpg',
    fit: 'contain',
    fps: 15,
    frames: 36,
    zoomMin: 0.88,
    panX: -0.7,
    panY: -0.4,
  },
} as const satisfies Record<string, FakeCameraSpec>;

export type FakeCameraName = keyof typeof FAKE_CAMERAS;

const E2E_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const DEFAULT_OUT_DIR = join(E2E_DIR, 'artifacts');
const PHOTOS_DIR = resolve(E2E_DIR, '../shared/fixtures/photos');

export function fakeCameraPath(name: FakeCameraName, outDir = DEFAULT_OUT_DIR): string {
  return join(outDir, FAKE_CAMERAS[name].file);
}

/** RGB (packed, 3 bytes per pixel) to planar I420, BT.601 limited range (what Chrome assumes for Y4M). */
export function rgbToI420(rgb: Uint8Array, width: number, height: number): Buffer {
  const ySize = width * height;
  const cw = width >> 1;
  const ch = height >> 1;
  const out = Buffer.allocUnsafe(ySize + 2 * cw * ch);
  for (let i = 0, p = 0; i < ySize; i++, p += 3) {
    const r = rgb[p]!,
      g = rgb[p + 1]!,
      b = rgb[p + 2]!;
    out[i] = clamp(16 + ((65.738 * r + 129.057 * g + 25.064 * b) >> 8));
  }
  let u = ySize;
  let v = ySize + cw * ch;
  for (let y = 0; y < ch; y++) {
    for (let x = 0; x < cw; x++) {
      // Average the 2x2 block (C420jpeg: chroma sited between the four luma samples).
      let r = 0,
        g = 0,
        b = 0;
      for (const [dx, dy] of [
        [0, 0],
        [1, 0],
        [0, 1],
        [1, 1],
      ] as const) {
        const p = ((2 * y + dy) * width + 2 * x + dx) * 3;
        r += rgb[p]!;
        g += rgb[p + 1]!;
        b += rgb[p + 2]!;
      }
      r /= 4;
      g /= 4;
      b /= 4;
      out[u++] = clamp(128 + (-37.945 * r - 74.494 * g + 112.439 * b) / 256);
      out[v++] = clamp(128 + (112.439 * r - 94.154 * g - 18.285 * b) / 256);
    }
  }
  return out;
}

function clamp(value: number): number {
  return value < 0 ? 0 : value > 255 ? 255 : Math.round(value);
}

/** The crop window of frame `index`: a closed, eased loop from the full picture to the deepest zoom and back. */
export function cropFor(spec: FakeCameraSpec, index: number): { left: number; top: number; width: number; height: number } {
  const phase = (2 * Math.PI * index) / spec.frames;
  const depth = (1 - Math.cos(phase)) / 2; // 0 at the loop's ends, 1 half-way
  const zoom = 1 - (1 - spec.zoomMin) * depth;
  const width = Math.round(WIDTH * zoom);
  const height = Math.round(HEIGHT * zoom);
  const marginX = WIDTH - width;
  const marginY = HEIGHT - height;
  // Centre +/- the pan share of half the margin; the sine makes it drift one way then come back.
  const drift = Math.sin(phase / 2); // 0 -> 1 -> 0 over the loop, smooth at both ends
  const left = Math.round(marginX / 2 + (spec.panX * drift * marginX) / 2);
  const top = Math.round(marginY / 2 + (spec.panY * drift * marginY) / 2);
  return { left: Math.min(Math.max(0, left), marginX), top: Math.min(Math.max(0, top), marginY), width, height };
}

/** The photo fitted to 640x480, raw RGB. */
async function basePicture(spec: FakeCameraSpec): Promise<Buffer> {
  return sharp(join(PHOTOS_DIR, spec.photo))
    .rotate()
    .removeAlpha()
    .resize(WIDTH, HEIGHT, { fit: spec.fit, background: { r: 24, g: 28, b: 36 }, kernel: 'lanczos3' })
    .raw()
    .toBuffer();
}

/** Writes one fake camera video; returns its path. Skips the work when an up-to-date file exists. */
export async function makeFakeCamera(name: FakeCameraName, outDir = DEFAULT_OUT_DIR): Promise<string> {
  const spec: FakeCameraSpec = FAKE_CAMERAS[name];
  const path = join(outDir, spec.file);
  const frameBytes = WIDTH * HEIGHT * 1.5;
  const header = `YUV4MPEG2 W${WIDTH} H${HEIGHT} F${spec.fps}:1 Ip A1:1 C420jpeg\n`;
  const expectedSize = header.length + spec.frames * ('FRAME\n'.length + frameBytes);
  try {
    const existing = statSync(path);
    const photo = statSync(join(PHOTOS_DIR, spec.photo));
    const script = statSync(fileURLToPath(import.meta.url));
    if (existing.size === expectedSize && existing.mtimeMs > photo.mtimeMs && existing.mtimeMs > script.mtimeMs) return path;
  } catch {
    // not there yet
  }
  mkdirSync(outDir, { recursive: true });
  const base = await basePicture(spec);
  const tmp = `${path}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, header);
    for (let i = 0; i < spec.frames; i++) {
      const crop = cropFor(spec, i);
      const rgb = await sharp(base, { raw: { width: WIDTH, height: HEIGHT, channels: 3 } })
        .extract(crop)
        .resize(WIDTH, HEIGHT, { kernel: 'lanczos3' })
        .raw()
        .toBuffer();
      writeSync(fd, 'FRAME\n');
      writeSync(fd, rgbToI420(rgb, WIDTH, HEIGHT));
    }
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  return path;
}

/** The cameras the e2e tests use (the 30 fps one only serves the rendering measurement). */
export const TEST_CAMERAS: readonly FakeCameraName[] = ['dog', 'astronaut'];

export async function makeAllFakeCameras(
  outDir = DEFAULT_OUT_DIR,
  names: readonly FakeCameraName[] = Object.keys(FAKE_CAMERAS) as FakeCameraName[],
): Promise<Partial<Record<FakeCameraName, string>>> {
  const result: Partial<Record<FakeCameraName, string>> = {};
  for (const name of names) result[name] = await makeFakeCamera(name, outDir);
  return result;
}

/** Also writes a PNG of the first, middle and last frame next to each video (to look at the motion). */
async function writePreviews(outDir: string): Promise<void> {
  for (const name of Object.keys(FAKE_CAMERAS) as FakeCameraName[]) {
    const spec: FakeCameraSpec = FAKE_CAMERAS[name];
    const base = await basePicture(spec);
    for (const index of [0, Math.floor(spec.frames / 4), Math.floor(spec.frames / 2), Math.floor((3 * spec.frames) / 4)]) {
      await sharp(base, { raw: { width: WIDTH, height: HEIGHT, channels: 3 } })
        .extract(cropFor(spec, index))
        .resize(WIDTH, HEIGHT)
        .png()
        .toFile(join(outDir, `preview-${name}-${String(index).padStart(2, '0')}.png`));
    }
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outDir = resolve(process.argv[2] ?? DEFAULT_OUT_DIR);
  const started = performance.now();
  const paths = await makeAllFakeCameras(outDir);
  if (process.argv.includes('--previews')) await writePreviews(outDir);
  for (const [name, path] of Object.entries(paths)) console.log(`${name}: ${path} (${(statSync(path).size / 1e6).toFixed(1)} MB)`);
  console.log(`done in ${Math.round(performance.now() - started)} ms`);
}
