/**
 * The detection overlay: a canvas laid exactly over the video (or still image). Drawn in
 * requestAnimationFrame from the latest result only when something changed, never through React state.
 * Handles object-fit letterboxing, element resizes (ResizeObserver), devicePixelRatio and mirrored views.
 */
import type { Detection } from '@sightline/shared/protocol';
import { classColour, classTextColour } from './class-colours.ts';
import { clipRect, contentRect, mapBox, visibleContent, type ObjectFit, type Rect } from './overlay-geometry.ts';

export interface OverlayResult {
  /** Size of the submitted image the boxes refer to. */
  width: number;
  height: number;
  detections: readonly Detection[];
  /** performance.now() when it arrived. */
  receivedAt: number;
}

export interface OverlayLayout {
  elementWidth: number;
  elementHeight: number;
  mediaWidth: number;
  mediaHeight: number;
  fit: ObjectFit;
  mirror: boolean;
  devicePixelRatio: number;
}

const TAG_HEIGHT = 18;
const FONT = '600 12px system-ui, -apple-system, "Segoe UI", Roboto, Ubuntu, sans-serif';

/** Draws the boxes with label + score tags. The context is reset and scaled for the device pixel ratio. */
export function drawDetections(ctx: CanvasRenderingContext2D, result: OverlayResult | undefined, layout: OverlayLayout, opacity = 1): void {
  const { elementWidth, elementHeight, devicePixelRatio: dpr } = layout;
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.clearRect(0, 0, ctx.canvas.width, ctx.canvas.height);
  if (!result || result.detections.length === 0 || layout.mediaWidth <= 0 || layout.mediaHeight <= 0) return;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.globalAlpha = opacity;
  const content = contentRect(elementWidth, elementHeight, layout.mediaWidth, layout.mediaHeight, layout.fit);
  const visible = visibleContent(content, elementWidth, elementHeight);
  ctx.font = FONT;
  ctx.textBaseline = 'middle';
  ctx.lineJoin = 'round';
  // Boxes: low scores first so the most confident end on top.
  const placed: { detection: Detection; box: Rect }[] = [];
  for (const detection of [...result.detections].sort((a, b) => a.score - b.score)) {
    const mapped = mapBox(detection.box, result.width, result.height, content, elementWidth, layout.mirror);
    const box = clipRect(mapped, visible);
    if (!box) continue;
    placed.push({ detection, box });
    const colour = classColour(detection.classId);
    ctx.lineWidth = 2;
    ctx.strokeStyle = 'rgba(0, 0, 0, 0.55)';
    ctx.strokeRect(box.x + 0.5, box.y + 0.5, box.width, box.height);
    ctx.strokeStyle = colour;
    ctx.strokeRect(box.x, box.y, box.width, box.height);
  }
  // Tags above every box; the most confident get the best spots, the others move to avoid overlaps.
  const taken: Rect[] = [];
  for (const { detection, box } of placed.reverse()) {
    const text = `${detection.label} ${Math.round(detection.score * 100)}%`;
    const tagWidth = ctx.measureText(text).width + 10;
    const tag = placeTag(box, tagWidth, TAG_HEIGHT, visible, taken);
    taken.push(tag);
    ctx.fillStyle = classColour(detection.classId);
    roundedRect(ctx, tag.x, tag.y, tag.width, tag.height, 3);
    ctx.fill();
    ctx.fillStyle = classTextColour(detection.classId);
    ctx.fillText(text, tag.x + 5, tag.y + TAG_HEIGHT / 2 + 0.5);
  }
  ctx.globalAlpha = 1;
}

function overlaps(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/** Where a box's label tag goes: above it, else inside its top, below it, inside its bottom; never outside the picture. */
export function placeTag(box: Rect, width: number, height: number, bounds: Rect, taken: readonly Rect[]): Rect {
  const x = Math.max(bounds.x, Math.min(box.x - 1, bounds.x + bounds.width - width));
  const candidates = [box.y - height, box.y, box.y + box.height, box.y + box.height - height]
    .filter((y) => y >= bounds.y && y + height <= bounds.y + bounds.height)
    .map((y) => ({ x, y, width, height }));
  const free = candidates.find((candidate) => !taken.some((other) => overlaps(candidate, other)));
  return free ?? candidates[0] ?? { x, y: Math.max(bounds.y, box.y), width, height };
}

function roundedRect(ctx: CanvasRenderingContext2D, x: number, y: number, width: number, height: number, radius: number): void {
  ctx.beginPath();
  if (typeof ctx.roundRect === 'function') ctx.roundRect(x, y, width, height, radius);
  else ctx.rect(x, y, width, height);
}

export interface MediaSize {
  width: number;
  height: number;
}

/** How old a result may get before its boxes are dimmed as stale (stream paused or stalled). */
const STALE_AFTER_MS = 1500;

export class OverlayRenderer {
  private result: OverlayResult | undefined;
  private mirror = false;
  private fit: ObjectFit = 'contain';
  private dirty = true;
  private frame = 0;
  private drawnStale = false;
  private observer: ResizeObserver | undefined;
  private cssWidth = 0;
  private cssHeight = 0;
  private readonly context: CanvasRenderingContext2D | null;

  constructor(
    private readonly canvas: HTMLCanvasElement,
    /** The shown picture's intrinsic size, or undefined while there is none. */
    private readonly mediaSize: () => MediaSize | undefined,
  ) {
    this.context = canvas.getContext('2d');
  }

  start(): void {
    const initial = this.canvas.getBoundingClientRect();
    this.cssWidth = initial.width;
    this.cssHeight = initial.height;
    this.observer = new ResizeObserver((entries) => {
      for (const entry of entries) {
        this.cssWidth = entry.contentRect.width;
        this.cssHeight = entry.contentRect.height;
      }
      this.invalidate();
    });
    this.observer.observe(this.canvas);
    window.addEventListener('resize', this.invalidate);
    this.loop();
  }

  stop(): void {
    cancelAnimationFrame(this.frame);
    this.observer?.disconnect();
    window.removeEventListener('resize', this.invalidate);
  }

  setResult(result: OverlayResult | undefined): void {
    this.result = result;
    this.dirty = true;
  }

  setMirror(mirror: boolean): void {
    if (mirror !== this.mirror) this.dirty = true;
    this.mirror = mirror;
  }

  setFit(fit: ObjectFit): void {
    if (fit !== this.fit) this.dirty = true;
    this.fit = fit;
  }

  /** Something about the layout changed (resize, new media size, DPR): redraw on the next frame. */
  readonly invalidate = (): void => {
    this.dirty = true;
  };

  private readonly loop = (): void => {
    this.frame = requestAnimationFrame(this.loop);
    this.syncSize();
    const stale = this.result !== undefined && performance.now() - this.result.receivedAt > STALE_AFTER_MS;
    if (stale !== this.drawnStale) this.dirty = true;
    if (!this.dirty || !this.context) return;
    this.dirty = false;
    this.drawnStale = stale;
    const media = this.mediaSize();
    drawDetections(
      this.context,
      media ? this.result : undefined,
      {
        elementWidth: this.cssWidth,
        elementHeight: this.cssHeight,
        mediaWidth: media?.width ?? 0,
        mediaHeight: media?.height ?? 0,
        fit: this.fit,
        mirror: this.mirror,
        devicePixelRatio: window.devicePixelRatio || 1,
      },
      stale ? 0.4 : 1,
    );
  };

  /** Keeps the backing store at CSS size x devicePixelRatio so lines stay crisp (no layout reads per frame). */
  private syncSize(): void {
    const dpr = window.devicePixelRatio || 1;
    const width = Math.max(1, Math.round(this.cssWidth * dpr));
    const height = Math.max(1, Math.round(this.cssHeight * dpr));
    if (this.canvas.width !== width || this.canvas.height !== height) {
      this.canvas.width = width;
      this.canvas.height = height;
      this.dirty = true;
    }
  }
}
