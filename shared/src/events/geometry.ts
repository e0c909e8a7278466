/**
 * The plane geometry of rules: which side of a line a point is on, whether a step crosses a segment, whether a
 * point is inside a polygon and how far from its edge. Points are normalised to the picture (0..1, y down); the
 * functions themselves work in any units.
 */
import type { Anchor, NormalisedPoint } from './types.ts';

/** A segment from `from` to `to` (a LineRule is one). */
export interface Segment {
  from: NormalisedPoint;
  to: NormalisedPoint;
}

/** `(to.x-from.x)*(p.y-from.y) - (to.y-from.y)*(p.x-from.x)`: twice the signed area of (from, to, p). */
export function cross(line: Segment, p: NormalisedPoint): number {
  return (line.to[0] - line.from[0]) * (p[1] - line.from[1]) - (line.to[1] - line.from[1]) * (p[0] - line.from[0]);
}

/**
 * The side of a point: `sign((to.x-from.x)*(p.y-from.y) - (to.y-from.y)*(p.x-from.x))`. A track whose side
 * goes from -1 to +1 across the segment crosses `in`. With y down, +1 is on the right of the line as drawn
 * (from `from` looking towards `to`, on the picture).
 */
export function side(line: Segment, p: NormalisedPoint): -1 | 0 | 1 {
  const c = cross(line, p);
  return c > 0 ? 1 : c < 0 ? -1 : 0;
}

export function segmentLength(line: Segment): number {
  return Math.hypot(line.to[0] - line.from[0], line.to[1] - line.from[1]);
}

/** The distance from the infinite line through the segment, signed as `side`. A zero-length segment gives 0. */
export function signedDistance(line: Segment, p: NormalisedPoint): number {
  const length = segmentLength(line);
  return length === 0 ? 0 : cross(line, p) / length;
}

const orientation = (a: NormalisedPoint, b: NormalisedPoint, c: NormalisedPoint) =>
  Math.sign((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]));

/** Whether q (known to be collinear with a, b) lies within their bounding box. */
const within = (a: NormalisedPoint, b: NormalisedPoint, q: NormalisedPoint) =>
  Math.min(a[0], b[0]) <= q[0] && q[0] <= Math.max(a[0], b[0]) && Math.min(a[1], b[1]) <= q[1] && q[1] <= Math.max(a[1], b[1]);

/** Whether segments p1-p2 and q1-q2 have a point in common (touching and collinear overlap included). */
export function segmentsIntersect(p1: NormalisedPoint, p2: NormalisedPoint, q1: NormalisedPoint, q2: NormalisedPoint): boolean {
  const o1 = orientation(p1, p2, q1);
  const o2 = orientation(p1, p2, q2);
  const o3 = orientation(q1, q2, p1);
  const o4 = orientation(q1, q2, p2);
  if (o1 !== o2 && o3 !== o4) return true;
  return (
    (o1 === 0 && within(p1, p2, q1)) ||
    (o2 === 0 && within(p1, p2, q2)) ||
    (o3 === 0 && within(q1, q2, p1)) ||
    (o4 === 0 && within(q1, q2, p2))
  );
}

/**
 * Where the step from `a` to `b` meets the infinite line through `line`, as a position along the segment: 0 at
 * `from`, 1 at `to` (within [0, 1]: the step crosses the segment itself). Undefined when the step does not reach
 * the line or runs along it.
 */
export function crossingPosition(line: Segment, a: NormalisedPoint, b: NormalisedPoint): number | undefined {
  const ca = cross(line, a);
  const cb = cross(line, b);
  if (ca === cb || (ca > 0 && cb > 0) || (ca < 0 && cb < 0)) return undefined;
  const t = ca / (ca - cb);
  const x = a[0] + t * (b[0] - a[0]);
  const y = a[1] + t * (b[1] - a[1]);
  const dx = line.to[0] - line.from[0];
  const dy = line.to[1] - line.from[1];
  return ((x - line.from[0]) * dx + (y - line.from[1]) * dy) / (dx * dx + dy * dy);
}

/** Whether the step from `a` to `b` crosses the segment (its end points included). */
export function stepCrossesSegment(line: Segment, a: NormalisedPoint, b: NormalisedPoint): boolean {
  const u = crossingPosition(line, a, b);
  return u !== undefined && u >= 0 && u <= 1;
}

/** The distance from p to the closest point of the segment a-b. */
export function distanceToSegment(p: NormalisedPoint, a: NormalisedPoint, b: NormalisedPoint): number {
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const length2 = dx * dx + dy * dy;
  const t = length2 === 0 ? 0 : Math.max(0, Math.min(1, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / length2));
  return Math.hypot(p[0] - (a[0] + t * dx), p[1] - (a[1] + t * dy));
}

/** Whether p is inside the polygon (even-odd rule; a point on the edge may go either way). */
export function pointInPolygon(p: NormalisedPoint, polygon: readonly NormalisedPoint[]): boolean {
  let inside = false;
  for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i++) {
    const [xi, yi] = polygon[i]!;
    const [xj, yj] = polygon[j]!;
    if (yi > p[1] !== yj > p[1] && p[0] < ((xj - xi) * (p[1] - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/** The distance from p to the polygon's closest edge. */
export function distanceToPolygonEdge(p: NormalisedPoint, polygon: readonly NormalisedPoint[]): number {
  let best = Infinity;
  for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i++)
    best = Math.min(best, distanceToSegment(p, polygon[j]!, polygon[i]!));
  return best;
}

/** The distance from the polygon's edge, positive inside and negative outside. */
export function signedPolygonDistance(p: NormalisedPoint, polygon: readonly NormalisedPoint[]): number {
  const d = distanceToPolygonEdge(p, polygon);
  return pointInPolygon(p, polygon) ? d : -d;
}

/** The signed area (shoelace; positive when the points turn clockwise on the picture, y down). */
export function polygonArea(polygon: readonly NormalisedPoint[]): number {
  let twice = 0;
  for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i++)
    twice += polygon[j]![0] * polygon[i]![1] - polygon[i]![0] * polygon[j]![1];
  return twice / 2;
}

/**
 * The first pair of edges that meet other than at the corner they share (edge i runs from point i to point
 * i+1), or undefined for a simple polygon. Repeated points count as meeting. O(n²): n is at most 64 in rules.
 */
export function selfIntersection(polygon: readonly NormalisedPoint[]): [number, number] | undefined {
  const n = polygon.length;
  for (let i = 0; i < n; i++) {
    const a1 = polygon[i]!;
    const a2 = polygon[(i + 1) % n]!;
    for (let j = i + 1; j < n; j++) {
      const b1 = polygon[j]!;
      const b2 = polygon[(j + 1) % n]!;
      const adjacent = j === i + 1 || (i === 0 && j === n - 1);
      if (adjacent) {
        // Neighbours share a corner: they meet elsewhere only by folding back along each other.
        const shared = j === i + 1 ? a2 : a1;
        const otherA = j === i + 1 ? a1 : a2;
        const otherB = j === i + 1 ? b2 : b1;
        if (orientation(otherA, shared, otherB) === 0 && (within(shared, otherA, otherB) || within(shared, otherB, otherA))) return [i, j];
        continue;
      }
      if (segmentsIntersect(a1, a2, b1, b2)) return [i, j];
    }
  }
  return undefined;
}

/** The anchor point of a pixel box [x1, y1, x2, y2] in a `width` x `height` picture, normalised. */
export function anchorPoint(
  box: readonly [number, number, number, number],
  anchor: Anchor,
  width: number,
  height: number,
): NormalisedPoint {
  const [x1, y1, x2, y2] = box;
  const cx = (x1 + x2) / 2;
  let p: [number, number];
  switch (anchor) {
    case 'bottom-center':
      p = [cx, y2];
      break;
    case 'center':
      p = [cx, (y1 + y2) / 2];
      break;
    case 'top-center':
      p = [cx, y1];
      break;
    case 'bottom-left':
      p = [x1, y2];
      break;
    case 'bottom-right':
      p = [x2, y2];
      break;
  }
  return [p[0] / width, p[1] / height];
}
