/**
 * Draws one overlay scene on the canvas laid over the video: each track's short trail, its box in the
 * track's colour and a tag with its id, label and score (boxes no confirmed track holds are dashed, in
 * their class colour, without an id). Handles object-fit letterboxing, devicePixelRatio and mirrored views.
 */
import { classColour, classTextColour, trackColour, trackTextColour } from './class-colours.ts';
import { clipRect, contentRect, mapBox, mapPoint, visibleContent, type ObjectFit, type Rect } from './overlay-geometry.ts';
import type { OverlayItem, OverlayScene } from './overlay-scene.ts';

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
const UNTRACKED_DASH = [6, 4];
/** Trail points drawn per track: the last ~second at 10-15 answers per second, short enough not to clutter. */
export const TRAIL_POINTS = 12;

export function itemColour(item: Pick<OverlayItem, 'trackId' | 'classId'>): string {
  return item.trackId === undefined ? classColour(item.classId) : trackColour(item.trackId);
}

function itemTextColour(item: Pick<OverlayItem, 'trackId' | 'classId'>): string {
  return item.trackId === undefined ? classTextColour(item.classId) : trackTextColour(item.trackId);
}

/** The tag over a box: `#3 dog 87%`, or `dog 87%` without a track. */
export function tagText(item: Pick<OverlayItem, 'trackId' | 'label' | 'score'>): string {
  const text = `${item.label} ${Math.round(item.score * 100)}%`;
  return item.trackId === undefined ? text : `#${item.trackId} ${text}`;
}

/** Draws the scene's trails, boxes and tags. The context is reset and scaled for the device pixel ratio. */
export function drawScene(ctx: CanvasRenderingContext2D, scene: OverlayScene | undefined, layout: OverlayLayout, opacity = 1): void {
  const { elementWidth, elementHeight, devicePixelRatio: dpr } = layout;
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.clearRect(0, 0, ctx.canvas.width, ctx.canvas.height);
  if (!scene || scene.items.length === 0 || layout.mediaWidth <= 0 || layout.mediaHeight <= 0) return;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.globalAlpha = opacity;
  const content = contentRect(elementWidth, elementHeight, layout.mediaWidth, layout.mediaHeight, layout.fit);
  const visible = visibleContent(content, elementWidth, elementHeight);
  ctx.font = FONT;
  ctx.textBaseline = 'middle';
  ctx.lineJoin = 'round';
  ctx.lineCap = 'round';

  ctx.save();
  ctx.beginPath();
  ctx.rect(visible.x, visible.y, visible.width, visible.height);
  ctx.clip();
  for (const item of scene.items) drawTrail(ctx, item, scene, content, layout, opacity);
  ctx.restore();

  // Boxes: low scores first so the most confident end on top.
  const placed: { item: OverlayItem; box: Rect }[] = [];
  for (const item of [...scene.items].sort((a, b) => a.score - b.score)) {
    const mapped = mapBox(item.box, scene.width, scene.height, content, elementWidth, layout.mirror);
    const box = clipRect(mapped, visible);
    if (!box) continue;
    placed.push({ item, box });
    ctx.setLineDash(item.trackId === undefined ? UNTRACKED_DASH : []);
    ctx.lineWidth = 2;
    ctx.strokeStyle = 'rgba(0, 0, 0, 0.55)';
    ctx.strokeRect(box.x + 0.5, box.y + 0.5, box.width, box.height);
    ctx.strokeStyle = itemColour(item);
    ctx.strokeRect(box.x, box.y, box.width, box.height);
  }
  ctx.setLineDash([]);
  // Tags above every box; the most confident get the best spots, the others move to avoid overlaps.
  const taken: Rect[] = [];
  for (const { item, box } of placed.reverse()) {
    const text = tagText(item);
    const tagWidth = ctx.measureText(text).width + 10;
    const tag = placeTag(box, tagWidth, TAG_HEIGHT, visible, taken);
    taken.push(tag);
    ctx.fillStyle = itemColour(item);
    roundedRect(ctx, tag.x, tag.y, tag.width, tag.height, 3);
    ctx.fill();
    ctx.fillStyle = itemTextColour(item);
    ctx.fillText(text, tag.x + 5, tag.y + TAG_HEIGHT / 2 + 0.5);
  }
  ctx.globalAlpha = 1;
}

/** The last TRAIL_POINTS centres of a track, fading towards the oldest. */
function drawTrail(
  ctx: CanvasRenderingContext2D,
  item: OverlayItem,
  scene: OverlayScene,
  content: Rect,
  layout: OverlayLayout,
  opacity: number,
): void {
  const points = item.trail.slice(-TRAIL_POINTS);
  if (points.length < 2) return;
  const mapped = points.map(([x, y]) => mapPoint(x, y, scene.width, scene.height, content, layout.elementWidth, layout.mirror));
  const colour = itemColour(item);
  ctx.strokeStyle = colour;
  ctx.fillStyle = colour;
  ctx.lineWidth = 3;
  for (let i = 1; i < mapped.length; i++) {
    const [x, y] = mapped[i]!;
    ctx.globalAlpha = opacity * (0.15 + (0.7 * i) / (mapped.length - 1));
    ctx.beginPath();
    ctx.moveTo(mapped[i - 1]![0], mapped[i - 1]![1]);
    ctx.lineTo(x, y);
    ctx.stroke();
    // A dot per detection: where the track was seen, answer by answer.
    ctx.beginPath();
    ctx.arc(x, y, 3, 0, 2 * Math.PI);
    ctx.fill();
  }
  ctx.globalAlpha = opacity;
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
