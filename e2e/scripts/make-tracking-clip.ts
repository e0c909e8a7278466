/**
 * The fake camera for the tracking test: objects cut from the fixture photos, pasted on a plain
 * background and moving along known paths at constant velocity, with the true box of every object in
 * every frame written beside the clip (`*.truth.json`), and each frame's index drawn into the picture as
 * a strip of black and white cells, so a test can tell which clip frame the browser is showing.
 *
 *   node --import tsx scripts/make-tracking-clip.ts [outDir]   (or via globalSetup)
 *
 * Each object goes back and forth along a straight line (LEG_FRAMES one way, LEG_FRAMES back), so the
 * clip loops without a jump and every object keeps one identity forever; between the turns its velocity
 * is constant, which is where a constant-velocity prediction has to be exact. The crops are the boxes
 * SSDLite finds in the photos, so the detector's box for a pasted object is the crop's box: the truth.
 * A cat (chelsea.jpg) and a bird (eagle.jpg): both are detected with their label in every frame of the
 * clip at the dashboard's "Auto" frame size (400x300), where the dog of dog.jpg turns into a cat or a
 * bird and a small person is missed at times.
 */
import { closeSync, mkdirSync, openSync, renameSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { DEFAULT_OUT_DIR, HEIGHT, rgbToI420, WIDTH } from './make-fake-camera.ts';

export type Box = [x1: number, y1: number, x2: number, y2: number];

export interface MovingObject {
  name: string;
  /** What SSDLite calls it. */
  label: string;
  photo: string;
  /** The crop of the photo (its detected box), pixels of the photo as EXIF-oriented. */
  crop: Box;
  /** Size in the clip relative to the crop. */
  scale: number;
  /** Centre at the first frame and at the far end of its line, clip pixels. */
  from: readonly [number, number];
  to: readonly [number, number];
}

export const FPS = 15;
/** Frames from one end of the line to the other: 4 s at 15 fps. */
export const LEG_FRAMES = 60;
export const FRAMES = 2 * LEG_FRAMES;
export const BACKGROUND = { r: 120, g: 124, b: 130 } as const;

export const OBJECTS: readonly MovingObject[] = [
  { name: 'bird', label: 'bird', photo: 'eagle.jpg', crop: [109, 70, 497, 368], scale: 0.5, from: [110, 115], to: [530, 150] },
  { name: 'cat', label: 'cat', photo: 'chelsea.jpg', crop: [1, 3, 411, 298], scale: 0.45, from: [540, 335], to: [100, 365] },
];

/** The frame-index strip: BITS cells of the index, then BITS cells of its complement (a misread fails the check). */
export const CODE = { x: 8, y: 4, cellWidth: 20, cellHeight: 12, bits: 8 } as const;

export const CLIP_FILE = 'fake-camera-tracking.y4m';
export const TRUTH_FILE = 'fake-camera-tracking.truth.json';

export interface ClipTruth {
  width: number;
  height: number;
  fps: number;
  frames: number;
  legFrames: number;
  code: typeof CODE;
  objects: { name: string; label: string; speedPxPerS: number; boxes: Box[] }[];
}

const E2E_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PHOTOS_DIR = resolve(E2E_DIR, '../shared/fixtures/photos');

export function trackingClipPath(outDir = DEFAULT_OUT_DIR): string {
  return join(outDir, CLIP_FILE);
}

export function truthPath(outDir = DEFAULT_OUT_DIR): string {
  return join(outDir, TRUTH_FILE);
}

/** 0 -> 1 -> 0 over LEG_FRAMES * 2 frames: the share of the line covered at frame `index`. */
export function legShare(index: number): number {
  const phase = (((index % FRAMES) + FRAMES) % FRAMES) / LEG_FRAMES;
  return phase <= 1 ? phase : 2 - phase;
}

function sizeOf(object: MovingObject): { width: number; height: number } {
  const [x1, y1, x2, y2] = object.crop;
  return { width: Math.round((x2 - x1) * object.scale), height: Math.round((y2 - y1) * object.scale) };
}

/** Where the object's pasted crop is in frame `index`: whole pixels, as pasted. */
export function boxAt(object: MovingObject, index: number): Box {
  const { width, height } = sizeOf(object);
  const share = legShare(index);
  const cx = object.from[0] + (object.to[0] - object.from[0]) * share;
  const cy = object.from[1] + (object.to[1] - object.from[1]) * share;
  const left = Math.round(cx - width / 2);
  const top = Math.round(cy - height / 2);
  return [left, top, left + width, top + height];
}

export function speedOf(object: MovingObject): number {
  return (Math.hypot(object.to[0] - object.from[0], object.to[1] - object.from[1]) * FPS) / LEG_FRAMES;
}

export function truth(): ClipTruth {
  return {
    width: WIDTH,
    height: HEIGHT,
    fps: FPS,
    frames: FRAMES,
    legFrames: LEG_FRAMES,
    code: CODE,
    objects: OBJECTS.map((object) => ({
      name: object.name,
      label: object.label,
      speedPxPerS: speedOf(object),
      boxes: Array.from({ length: FRAMES }, (_, index) => boxAt(object, index)),
    })),
  };
}

/** The index strip as one RGB overlay: black or white cells. */
async function codeStrip(index: number): Promise<Buffer> {
  const cells = 2 * CODE.bits;
  const width = cells * CODE.cellWidth;
  const rgb = Buffer.alloc(width * CODE.cellHeight * 3);
  for (let cell = 0; cell < cells; cell++) {
    const bit = cell < CODE.bits ? (index >> cell) & 1 : 1 - ((index >> (cell - CODE.bits)) & 1);
    for (let y = 0; y < CODE.cellHeight; y++)
      rgb.fill(bit ? 255 : 0, (y * width + cell * CODE.cellWidth) * 3, (y * width + (cell + 1) * CODE.cellWidth) * 3);
  }
  return sharp(rgb, { raw: { width, height: CODE.cellHeight, channels: 3 } })
    .png()
    .toBuffer();
}

/**
 * The index from the strip's cells, each given as its mean brightness 0..255 (a test measures the middle
 * of each cell in the frame on screen); undefined when a cell does not match its complement.
 */
export function decodeCells(levels: readonly number[]): number | undefined {
  if (levels.length !== 2 * CODE.bits) return undefined;
  let index = 0;
  for (let bit = 0; bit < CODE.bits; bit++) {
    const value = levels[bit]! > 128 ? 1 : 0;
    const complement = levels[bit + CODE.bits]! > 128 ? 1 : 0;
    if (value === complement) return undefined;
    index |= value << bit;
  }
  return index < FRAMES ? index : undefined;
}

async function crops(): Promise<Buffer[]> {
  return Promise.all(
    OBJECTS.map((object) => {
      const [x1, y1, x2, y2] = object.crop;
      return sharp(join(PHOTOS_DIR, object.photo))
        .rotate()
        .extract({ left: x1, top: y1, width: x2 - x1, height: y2 - y1 })
        .resize(sizeOf(object).width, sizeOf(object).height, { kernel: 'lanczos3' })
        .removeAlpha()
        .png()
        .toBuffer();
    }),
  );
}

/** Frame `index` as raw RGB. */
async function frameRgb(index: number, pieces: readonly Buffer[]): Promise<Buffer> {
  const composites = OBJECTS.map((object, i) => {
    const [left, top] = boxAt(object, index);
    return { input: pieces[i]!, left, top };
  });
  composites.push({ input: await codeStrip(index), left: CODE.x, top: CODE.y });
  const composed = await sharp({ create: { width: WIDTH, height: HEIGHT, channels: 3, background: BACKGROUND } })
    .composite(composites)
    .png()
    .toBuffer();
  return sharp(composed).removeAlpha().raw().toBuffer();
}

/** Writes the clip and its truth; skips the work when both are up to date. Returns the clip's path. */
export async function makeTrackingClip(outDir = DEFAULT_OUT_DIR): Promise<string> {
  const path = trackingClipPath(outDir);
  const header = `YUV4MPEG2 W${WIDTH} H${HEIGHT} F${FPS}:1 Ip A1:1 C420jpeg\n`;
  const expectedSize = header.length + FRAMES * ('FRAME\n'.length + WIDTH * HEIGHT * 1.5);
  try {
    const script = statSync(fileURLToPath(import.meta.url)).mtimeMs;
    const clip = statSync(path);
    if (clip.size === expectedSize && clip.mtimeMs > script && statSync(truthPath(outDir)).mtimeMs > script) return path;
  } catch {
    // not there yet
  }
  mkdirSync(outDir, { recursive: true });
  const pieces = await crops();
  const tmp = `${path}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, header);
    for (let index = 0; index < FRAMES; index++) {
      writeSync(fd, 'FRAME\n');
      writeSync(fd, rgbToI420(await frameRgb(index, pieces), WIDTH, HEIGHT));
    }
  } finally {
    closeSync(fd);
  }
  writeFileSync(truthPath(outDir), `${JSON.stringify(truth())}\n`);
  renameSync(tmp, path);
  return path;
}

/** PNGs of a few frames beside the clip, to look at. */
export async function writeTrackingPreviews(outDir = DEFAULT_OUT_DIR): Promise<void> {
  const pieces = await crops();
  for (const index of [0, LEG_FRAMES / 2, LEG_FRAMES]) {
    await sharp(await frameRgb(index, pieces), { raw: { width: WIDTH, height: HEIGHT, channels: 3 } })
      .png()
      .toFile(join(outDir, `preview-tracking-${String(index).padStart(3, '0')}.png`));
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outDir = resolve(process.argv[2] ?? DEFAULT_OUT_DIR);
  const started = performance.now();
  const path = await makeTrackingClip(outDir);
  if (process.argv.includes('--previews')) await writeTrackingPreviews(outDir);
  console.log(`tracking clip: ${path} (${(statSync(path).size / 1e6).toFixed(1)} MB) in ${Math.round(performance.now() - started)} ms`);
}
