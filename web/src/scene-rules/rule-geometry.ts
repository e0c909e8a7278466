/**
 * Rules on the live picture: where a rule's points land on screen and back, which rule (or which of its points)
 * a pointer is on, the arrow that shows a line's `in` side, and moving rules without leaving the picture. Pure.
 *
 * Rules are in picture coordinates (normalised to the picture's content box, 0..1, y down), the screen shows the
 * picture letterboxed in its element (object-fit: contain) and, with Mirror view, flipped about the element's
 * centre: the overlay's own geometry (overlay/overlay-geometry.ts) maps one to the other, so the rules sit exactly
 * where the boxes are drawn. Hit testing is in element pixels (a touch target is a size on screen, not on the picture).
 */
import { pointInPolygon, side, type CameraRules, type LineRule, type NormalisedPoint, type ZoneRule } from '@sightline/shared/events';
import { contentRect, type MediaSize, type Rect } from '../overlay/overlay-geometry.ts';

/** A point in element pixels (from the element's top-left corner). */
export type ScreenPoint = readonly [x: number, y: number];

/** How the picture is shown: where its content box is in the element, and whether the element is mirrored. */
export interface PictureView {
  content: Rect;
  elementWidth: number;
  elementHeight: number;
  mirror: boolean;
}

/** The view of a `media` picture shown with object-fit: contain in an element of that size. */
export function pictureView(elementWidth: number, elementHeight: number, media: MediaSize | undefined, mirror: boolean): PictureView {
  const content = media
    ? contentRect(elementWidth, elementHeight, media.width, media.height, 'contain')
    : { x: 0, y: 0, width: elementWidth, height: elementHeight };
  return { content, elementWidth, elementHeight, mirror };
}

/** Where a picture point is shown, in element pixels (as overlay-geometry's mapPoint, mirrored or not). */
export function toScreen(point: NormalisedPoint, view: PictureView): ScreenPoint {
  const { content } = view;
  const x = content.x + point[0] * content.width;
  const y = content.y + point[1] * content.height;
  return [view.mirror ? view.elementWidth - x : x, y];
}

const clamp01 = (value: number): number => Math.min(1, Math.max(0, value));

/** The picture point shown at an element point, kept on the picture (a pointer beside it is at its edge). */
export function toPicture(point: ScreenPoint, view: PictureView): NormalisedPoint {
  const { content } = view;
  const x = view.mirror ? view.elementWidth - point[0] : point[0];
  if (content.width <= 0 || content.height <= 0) return [0, 0];
  return [round(clamp01((x - content.x) / content.width)), round(clamp01((point[1] - content.y) / content.height))];
}

/** Six decimals: a millionth of the picture, far below a pixel, and rules that read well as JSON. */
function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

const distance = (a: ScreenPoint, b: ScreenPoint): number => Math.hypot(a[0] - b[0], a[1] - b[1]);

/** The distance from p to the segment a-b, all in element pixels. */
export function distanceToSegmentPx(p: ScreenPoint, a: ScreenPoint, b: ScreenPoint): number {
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const length2 = dx * dx + dy * dy;
  const t = length2 === 0 ? 0 : Math.max(0, Math.min(1, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / length2));
  return Math.hypot(p[0] - (a[0] + t * dx), p[1] - (a[1] + t * dy));
}

/**
 * The arrow that shows a line's `in` side, in element pixels: from the line's middle, `length` px square to it,
 * towards the side a track ends on when it crosses `in`. The issue defines
 * `side(p) = sign((to.x-from.x)*(p.y-from.y) - (to.y-from.y)*(p.x-from.x))` and `in` as side going from negative
 * to positive, so the arrow points at side +1: in picture pixels that is the normal (-dy, dx) of the direction
 * (dx, dy) (its cross product with the direction is dx² + dy² > 0; on screen, y down, the right of the line
 * as drawn). Scaling the axes by positive factors keeps a side's sign, so that normal taken in element pixels
 * still points at side +1, but mirroring flips x and with it every side: the normal turns round.
 */
export function inArrow(line: Pick<LineRule, 'from' | 'to'>, view: PictureView, length: number): { base: ScreenPoint; tip: ScreenPoint } {
  const a = toScreen(line.from, view);
  const b = toScreen(line.to, view);
  const base: ScreenPoint = [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const norm = Math.hypot(dx, dy);
  if (norm === 0) return { base, tip: base };
  const orientation = view.mirror ? -1 : 1;
  const scale = (orientation * length) / norm;
  return { base, tip: [base[0] - dy * scale, base[1] + dx * scale] };
}

/** The side (+1: `in` side, -1: `out` side) of the line a picture point is on, as the gateway decides it. */
export function lineSide(line: Pick<LineRule, 'from' | 'to'>, point: NormalisedPoint): -1 | 0 | 1 {
  return side(line, point);
}

/** Which rule of the camera's: the kind and its index in `lines` or `zones`. */
export interface RuleRef {
  kind: 'line' | 'zone';
  index: number;
}

export const sameRef = (a: RuleRef | undefined, b: RuleRef | undefined): boolean =>
  a !== undefined && b !== undefined && a.kind === b.kind && a.index === b.index;

export function ruleAt(rules: CameraRules, ref: RuleRef): LineRule | ZoneRule | undefined {
  return ref.kind === 'line' ? rules.lines[ref.index] : rules.zones[ref.index];
}

/** A rule's points: a line's `from` and `to`, a zone's corners. */
export function pointsOf(rule: LineRule | ZoneRule): NormalisedPoint[] {
  return 'polygon' in rule ? rule.polygon : [rule.from, rule.to];
}

/** What is under the pointer: one of a rule's points (`vertex`), or the rule itself (`body`, to move it whole). */
export type Hit = { ref: RuleRef; part: 'vertex'; vertex: number } | { ref: RuleRef; part: 'body' };

/** A point's handle is this far around it, in element pixels: a 36 px touch target. */
export const HANDLE_RADIUS_PX = 18;
/** A line is grabbed this close to it. */
export const LINE_TOLERANCE_PX = 14;

/**
 * What a pointer at `at` (element pixels) is on. The selected rule's points first (they are drawn on top), then
 * any rule's points, then lines (nearest), then zones whose edge is near or which hold the point (smallest first,
 * so a zone inside another can still be taken).
 */
export function hitTest(rules: CameraRules, view: PictureView, at: ScreenPoint, selected?: RuleRef): Hit | undefined {
  const refs: RuleRef[] = [
    ...rules.lines.map((_, index) => ({ kind: 'line' as const, index })),
    ...rules.zones.map((_, index) => ({ kind: 'zone' as const, index })),
  ];
  const ordered = selected ? [selected, ...refs.filter((ref) => !sameRef(ref, selected))] : refs;
  let best: { hit: Hit; distance: number } | undefined;
  for (const ref of ordered) {
    const rule = ruleAt(rules, ref);
    if (!rule) continue;
    pointsOf(rule).forEach((point, vertex) => {
      const d = distance(toScreen(point, view), at);
      if (d <= HANDLE_RADIUS_PX && (!best || d < best.distance)) best = { hit: { ref, part: 'vertex', vertex }, distance: d };
    });
    // The selected rule's own handles win over another rule's nearer one.
    if (best && sameRef(ref, selected)) return best.hit;
  }
  if (best) return best.hit;
  let nearestLine: { ref: RuleRef; distance: number } | undefined;
  rules.lines.forEach((line, index) => {
    const d = distanceToSegmentPx(at, toScreen(line.from, view), toScreen(line.to, view));
    if (d <= LINE_TOLERANCE_PX && (!nearestLine || d < nearestLine.distance)) nearestLine = { ref: { kind: 'line', index }, distance: d };
  });
  if (nearestLine) return { ref: nearestLine.ref, part: 'body' };
  const picture = toPicture(at, view);
  let smallest: { ref: RuleRef; area: number } | undefined;
  rules.zones.forEach((zone, index) => {
    const corners = zone.polygon.map((point) => toScreen(point, view));
    const nearEdge = corners.some(
      (corner, i) => distanceToSegmentPx(at, corners[(i + corners.length - 1) % corners.length]!, corner) <= LINE_TOLERANCE_PX,
    );
    if (!nearEdge && !pointInPolygon(picture, zone.polygon)) return;
    const area = Math.abs(screenArea(corners));
    if (!smallest || area < smallest.area) smallest = { ref: { kind: 'zone', index }, area };
  });
  return smallest && { ref: smallest.ref, part: 'body' };
}

function screenArea(points: readonly ScreenPoint[]): number {
  let twice = 0;
  for (let i = 0, j = points.length - 1; i < points.length; j = i++) twice += points[j]![0] * points[i]![1] - points[i]![0] * points[j]![1];
  return twice / 2;
}

/**
 * The rule moved by (dx, dy) in picture units, as far as it goes without leaving the picture: every point
 * moves by the same amount (the shape is kept), stopped at the picture's edges.
 */
export function moveRule<R extends LineRule | ZoneRule>(rule: R, dx: number, dy: number): R {
  const points = pointsOf(rule);
  const xs = points.map((p) => p[0]);
  const ys = points.map((p) => p[1]);
  const sx = Math.min(Math.max(dx, -Math.min(...xs)), 1 - Math.max(...xs));
  const sy = Math.min(Math.max(dy, -Math.min(...ys)), 1 - Math.max(...ys));
  const shift = (p: NormalisedPoint): NormalisedPoint => [round(clamp01(p[0] + sx)), round(clamp01(p[1] + sy))];
  if ('polygon' in rule) return { ...rule, polygon: rule.polygon.map(shift) };
  const line = rule as LineRule;
  return { ...line, from: shift(line.from), to: shift(line.to) } as R;
}

/** The rule with its point `vertex` at `point` (a line's 0 is `from`, 1 is `to`). */
export function moveVertex<R extends LineRule | ZoneRule>(rule: R, vertex: number, point: NormalisedPoint): R {
  if ('polygon' in rule) return { ...rule, polygon: rule.polygon.map((p, i) => (i === vertex ? point : p)) };
  const line = rule as LineRule;
  return (vertex === 0 ? { ...line, from: point } : { ...line, to: point }) as R;
}

/** Where a rule's name and counts are shown: a line's middle, a zone's centre (the mean of its corners). */
export function labelAnchor(rule: LineRule | ZoneRule, view: PictureView): ScreenPoint {
  const points = pointsOf(rule).map((point) => toScreen(point, view));
  const x = points.reduce((sum, p) => sum + p[0], 0) / points.length;
  const y = points.reduce((sum, p) => sum + p[1], 0) / points.length;
  return [x, y];
}

/**
 * Where a line's badge (its name and counts) goes: beside the line's middle on its `out` side, so it covers neither
 * the line nor the `in` arrow. `shiftX`, `shiftY` (0, -0.5 or -1) are the share of the badge's own size to move it
 * by (a CSS translate), so it grows away from the line whatever its width.
 */
export function badgePlacement(
  line: Pick<LineRule, 'from' | 'to'>,
  view: PictureView,
  gap: number,
): { at: ScreenPoint; shiftX: 0 | -0.5 | -1; shiftY: 0 | -0.5 | -1 } {
  const { base, tip } = inArrow(line, view, 1);
  const ox = base[0] - tip[0];
  const oy = base[1] - tip[1];
  const shift = (d: number) => (d < -0.35 ? -1 : d > 0.35 ? 0 : -0.5);
  return { at: [base[0] + ox * gap, base[1] + oy * gap], shiftX: shift(ox), shiftY: shift(oy) };
}

/** The length of a segment between two picture points, in element pixels (a tap is not a line). */
export function screenLength(a: NormalisedPoint, b: NormalisedPoint, view: PictureView): number {
  return distance(toScreen(a, view), toScreen(b, view));
}

/** Whether the element point is on the picture (not on the bars beside a letterboxed picture). */
export function onPicture(point: ScreenPoint, view: PictureView): boolean {
  const { content } = view;
  const x = view.mirror ? view.elementWidth - point[0] : point[0];
  return x >= content.x && x <= content.x + content.width && point[1] >= content.y && point[1] <= content.y + content.height;
}
