/**
 * The tracking test's instruments: which clip frame the browser shows (read from the index strip the clip
 * carries, scripts/make-tracking-clip.ts), what the overlay drew for it (the dashboard's `?debug` hook,
 * `window.__sightline`, web/src/overlay/draw-log.ts), and how far the drawn boxes are from the truth.
 */
import type { APIRequestContext, Page } from '@playwright/test';
import type { DetectionsMessage } from '@sightline/shared/protocol';
import type { DrawnBox, DrawnFrame } from '@sightline/web/draw-log';
import { targetSize } from '@sightline/web/frame-size';
import { CODE, decodeCells, trackingClipPath, type Box, type ClipTruth } from '../scripts/make-tracking-clip.ts';
import { i420ToJpeg, readY4m } from './y4m.ts';

/** A constant shift, clip pixels. */
export type Offset = readonly [dx: number, dy: number];

/** A frame the video presented, with the brightness of each cell of its index strip. */
interface FrameReading {
  mediaTime: number;
  levels: number[];
}

/**
 * From now on, every frame the page's <video> presents is read: requestVideoFrameCallback hands each to
 * us as it is shown (the same frame and metadata the dashboard's overlay gets), and the middle of each
 * index cell is measured on a small canvas.
 */
export async function startReadingFrames(page: Page): Promise<void> {
  await page.getByTestId('video').evaluate((element, code) => {
    const video = element as HTMLVideoElement;
    const cells = 2 * code.bits;
    const width = cells * code.cellWidth;
    const canvas = new OffscreenCanvas(width, code.cellHeight);
    const context = canvas.getContext('2d', { willReadFrequently: true })!;
    const readings: { mediaTime: number; levels: number[] }[] = [];
    Object.defineProperty(window, '__clipFrames', { value: readings });
    const onFrame = (_now: number, metadata: VideoFrameCallbackMetadata): void => {
      context.drawImage(video, code.x, code.y, width, code.cellHeight, 0, 0, width, code.cellHeight);
      const { data } = context.getImageData(0, 0, width, code.cellHeight);
      const levels: number[] = [];
      for (let cell = 0; cell < cells; cell++) {
        let sum = 0;
        let count = 0;
        // The middle of the cell, away from edges blurred by chroma subsampling.
        for (let y = 3; y < code.cellHeight - 3; y++) {
          for (let x = cell * code.cellWidth + 5; x < (cell + 1) * code.cellWidth - 5; x++) {
            const p = (y * width + x) * 4;
            sum += (data[p]! + data[p + 1]! + data[p + 2]!) / 3;
            count++;
          }
        }
        levels.push(sum / count);
      }
      readings.push({ mediaTime: metadata.mediaTime, levels });
      video.requestVideoFrameCallback(onFrame);
    };
    video.requestVideoFrameCallback(onFrame);
  }, CODE);
}

/** The clip frame index of every frame read so far, by media time. */
export async function clipFrames(page: Page): Promise<Map<number, number>> {
  const readings = await page.evaluate(() => (window as unknown as { __clipFrames: FrameReading[] }).__clipFrames);
  const frames = new Map<number, number>();
  for (const reading of readings) {
    const index = decodeCells(reading.levels);
    if (index !== undefined) frames.set(reading.mediaTime, index);
  }
  return frames;
}

export async function clearDraws(page: Page): Promise<void> {
  await page.evaluate(() => (window as unknown as { __sightline: { clearDraws(): void } }).__sightline.clearDraws());
}

export async function draws(page: Page): Promise<DrawnFrame[]> {
  return page.evaluate(() => (window as unknown as { __sightline: { draws(): DrawnFrame[] } }).__sightline.draws());
}

function iou(a: Box | DrawnBox['box'], b: Box | DrawnBox['box']): number {
  const ix = Math.max(0, Math.min(a[2], b[2]) - Math.max(a[0], b[0]));
  const iy = Math.max(0, Math.min(a[3], b[3]) - Math.max(a[1], b[1]));
  const intersection = ix * iy;
  const union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - intersection;
  return union > 0 ? intersection / union : 0;
}

function centreDistance(a: Box | DrawnBox['box'], b: Box | DrawnBox['box']): number {
  return Math.hypot((a[0] + a[2]) / 2 - (b[0] + b[2]) / 2, (a[1] + a[3]) / 2 - (b[1] + b[3]) / 2);
}

/** One object in one drawn frame: the drawn box of its label that overlaps its true box most. */
export interface Placement {
  object: string;
  /** The clip frame on screen. */
  index: number;
  mode: DrawnFrame['mode'];
  /** The capture time drawn for (page clock, ms). */
  displayAt: number;
  leadMs: number;
  /** Undefined when no box of its label was drawn over it. */
  drawn?: DrawnBox;
  /** Distance between the drawn and the true box centres, px of the clip. */
  errorPx?: number;
}

/**
 * Where the detector itself puts each object, relative to its pasted crop, with no latency at all: clip
 * frames sent as the dashboard sends them (its Auto frame size for the model's input, JPEG) straight to
 * POST /api/detect. The crop is the box found in the whole photo, so on the clip the detector's box is off
 * by a few pixels, the same in every frame: no lag, and nothing prediction could remove. The mean offset
 * over `samples` frames spread over the clip is taken out of the comparison.
 */
export async function detectorOffsets(request: APIRequestContext, truth: ClipTruth, samples = 12): Promise<Map<string, Offset>> {
  const models = (await (await request.get('/api/models')).json()) as {
    defaultModel: string;
    models: { name: string; input: Parameters<typeof targetSize>[2] }[];
  };
  const input = models.models.find((model) => model.name === models.defaultModel)!.input;
  const size = targetSize({ width: truth.width, height: truth.height }, 'auto', input);
  const video = readY4m(trackingClipPath());
  const sums = new Map<string, { dx: number; dy: number; count: number }>();
  for (let i = 0; i < samples; i++) {
    const index = Math.floor((i * truth.frames) / samples);
    const jpeg = await i420ToJpeg(video.frames[index]!, video.width, video.height, Math.max(size.width, size.height));
    const answer = (await (
      await request.post('/api/detect', { data: jpeg, headers: { 'content-type': 'image/jpeg' } })
    ).json()) as DetectionsMessage;
    const scale = truth.width / answer.width;
    for (const object of truth.objects) {
      const found = answer.detections.find((detection) => detection.label === object.label);
      if (!found) continue;
      const [x1, y1, x2, y2] = object.boxes[index]!;
      const sum = sums.get(object.name) ?? { dx: 0, dy: 0, count: 0 };
      sum.dx += ((found.box[0] + found.box[2]) * scale - (x1 + x2)) / 2;
      sum.dy += ((found.box[1] + found.box[3]) * scale - (y1 + y2)) / 2;
      sum.count++;
      sums.set(object.name, sum);
    }
  }
  return new Map([...sums].map(([name, { dx, dy, count }]) => [name, [dx / count, dy / count] as const]));
}

/** Every (drawn frame, object) pair whose clip frame is known; the truth moved by the detector's own offset. */
export function placements(
  drawn: readonly DrawnFrame[],
  frames: ReadonlyMap<number, number>,
  truth: ClipTruth,
  offsets: ReadonlyMap<string, Offset> = new Map(),
): Placement[] {
  const out: Placement[] = [];
  for (const draw of drawn) {
    if (draw.mediaTime === undefined || draw.leadMs === undefined) continue;
    const index = frames.get(draw.mediaTime);
    if (index === undefined) continue;
    for (const object of truth.objects) {
      const [dx, dy] = offsets.get(object.name) ?? [0, 0];
      const [x1, y1, x2, y2] = object.boxes[index]!;
      const box: Box = [x1 + dx, y1 + dy, x2 + dx, y2 + dy];
      let best: DrawnBox | undefined;
      let bestIou = 0;
      for (const candidate of draw.boxes) {
        if (candidate.label !== object.label) continue;
        const overlap = iou(candidate.box, box);
        if (overlap > bestIou) [best, bestIou] = [candidate, overlap];
      }
      const placement: Placement = { object: object.name, index, mode: draw.mode, displayAt: draw.displayAt, leadMs: draw.leadMs };
      if (best) Object.assign(placement, { drawn: best, errorPx: centreDistance(best.box, box) });
      out.push(placement);
    }
  }
  return out;
}

export interface IdHistory {
  /** Every track id drawn over the object, in order of appearance. */
  ids: number[];
  /** Changes of the id drawn over it, in drawing order (frames without an id skipped). */
  switches: number;
  /**
   * Of those, changes across a stall: no answer for longer than `stallMs` (a draw that far behind the
   * latest answer), or no drawing at all for that long. The object went unseen meanwhile, so a new identity
   * says nothing about the tracker's association (its tracks are predicted blind and drop by its own rules).
   */
  acrossStalls: number;
}

export function idHistory(placed: readonly Placement[], object: string, stallMs: number): IdHistory {
  const ids: number[] = [];
  let switches = 0;
  let acrossStalls = 0;
  let previous: number | undefined;
  let stalled = false;
  let lastDisplayAt: number | undefined;
  for (const placement of placed) {
    if (placement.object !== object) continue;
    if (placement.leadMs > stallMs || (lastDisplayAt !== undefined && placement.displayAt - lastDisplayAt > stallMs)) stalled = true;
    lastDisplayAt = placement.displayAt;
    const id = placement.drawn?.trackId;
    if (id === undefined) continue;
    if (!ids.includes(id)) ids.push(id);
    if (previous !== undefined && id !== previous) {
      switches++;
      if (stalled) acrossStalls++;
    }
    previous = id;
    stalled = placement.leadMs > stallMs;
  }
  return { ids, switches, acrossStalls };
}

export function mean(values: readonly number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}
