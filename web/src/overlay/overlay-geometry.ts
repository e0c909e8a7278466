/**
 * Where the picture actually is inside its element (object-fit letterboxing), and where a detection box in
 * image pixels lands on screen, mirrored or not. Pure functions, all sizes in CSS pixels.
 */
import type { Box } from '@sightline/shared/protocol';

export type ObjectFit = 'contain' | 'cover' | 'fill';

/** A picture's intrinsic size (a video's or an image's natural width and height). */
export interface MediaSize {
  width: number;
  height: number;
}

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The rectangle a `mediaWidth x mediaHeight` picture occupies in an element of the given size. */
export function contentRect(
  elementWidth: number,
  elementHeight: number,
  mediaWidth: number,
  mediaHeight: number,
  fit: ObjectFit = 'contain',
): Rect {
  if (elementWidth <= 0 || elementHeight <= 0 || mediaWidth <= 0 || mediaHeight <= 0) {
    return { x: 0, y: 0, width: Math.max(0, elementWidth), height: Math.max(0, elementHeight) };
  }
  if (fit === 'fill') return { x: 0, y: 0, width: elementWidth, height: elementHeight };
  const scaleX = elementWidth / mediaWidth;
  const scaleY = elementHeight / mediaHeight;
  const scale = fit === 'contain' ? Math.min(scaleX, scaleY) : Math.max(scaleX, scaleY);
  const width = mediaWidth * scale;
  const height = mediaHeight * scale;
  return { x: (elementWidth - width) / 2, y: (elementHeight - height) / 2, width, height };
}

/**
 * Maps a box in pixels of the submitted image (`imageWidth x imageHeight`, any scale of the shown picture)
 * to element coordinates. With `mirror`, the element is shown flipped horizontally (CSS scaleX(-1) about its
 * centre), so the box is flipped the same way about the element's centre.
 */
export function mapBox(box: Box, imageWidth: number, imageHeight: number, content: Rect, elementWidth: number, mirror: boolean): Rect {
  const [x1, y1, x2, y2] = box;
  const sx = content.width / imageWidth;
  const sy = content.height / imageHeight;
  const left = content.x + Math.min(x1, x2) * sx;
  const right = content.x + Math.max(x1, x2) * sx;
  const top = content.y + Math.min(y1, y2) * sy;
  const bottom = content.y + Math.max(y1, y2) * sy;
  const x = mirror ? elementWidth - right : left;
  return { x, y: top, width: right - left, height: bottom - top };
}

/** A point in pixels of the submitted image, in element coordinates (as mapBox, mirrored or not). */
export function mapPoint(
  x: number,
  y: number,
  imageWidth: number,
  imageHeight: number,
  content: Rect,
  elementWidth: number,
  mirror: boolean,
): readonly [number, number] {
  const px = content.x + (x * content.width) / imageWidth;
  const py = content.y + (y * content.height) / imageHeight;
  return [mirror ? elementWidth - px : px, py];
}

/** Intersection of a rectangle with the visible content (cover mode crops; boxes must not leak outside). */
export function clipRect(rect: Rect, bounds: Rect): Rect | undefined {
  const x1 = Math.max(rect.x, bounds.x);
  const y1 = Math.max(rect.y, bounds.y);
  const x2 = Math.min(rect.x + rect.width, bounds.x + bounds.width);
  const y2 = Math.min(rect.y + rect.height, bounds.y + bounds.height);
  if (x2 <= x1 || y2 <= y1) return undefined;
  return { x: x1, y: y1, width: x2 - x1, height: y2 - y1 };
}

/** Visible part of the content inside the element. */
export function visibleContent(content: Rect, elementWidth: number, elementHeight: number): Rect {
  return clipRect(content, { x: 0, y: 0, width: elementWidth, height: elementHeight }) ?? { x: 0, y: 0, width: 0, height: 0 };
}
