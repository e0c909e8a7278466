import { describe, expect, it } from 'vitest';
import {
  anchorPoint,
  crossingPosition,
  distanceToPolygonEdge,
  distanceToSegment,
  pointInPolygon,
  polygonArea,
  segmentsIntersect,
  selfIntersection,
  side,
  signedDistance,
  signedPolygonDistance,
  stepCrossesSegment,
} from '../../../src/events/geometry.ts';
import type { NormalisedPoint } from '../../../src/events/types.ts';

const horizontal = { from: [0, 0.5] as NormalisedPoint, to: [1, 0.5] as NormalisedPoint };
const square: NormalisedPoint[] = [
  [0.2, 0.2],
  [0.6, 0.2],
  [0.6, 0.6],
  [0.2, 0.6],
];

describe('side', () => {
  it("is the issue's sign((to.x-from.x)*(p.y-from.y) - (to.y-from.y)*(p.x-from.x)): +1 on the right of the line as drawn, y down", () => {
    // Drawn left to right: below it (y larger) is its right.
    expect(side(horizontal, [0.5, 0.7])).toBe(1);
    expect(side(horizontal, [0.5, 0.3])).toBe(-1);
    expect(side(horizontal, [0.5, 0.5])).toBe(0);
    // Drawn the other way, the sides swap.
    const reversed = { from: horizontal.to, to: horizontal.from };
    expect(side(reversed, [0.5, 0.7])).toBe(-1);
    expect(side(reversed, [0.5, 0.3])).toBe(1);
    // Drawn downwards: the left of the picture is +1.
    const down = { from: [0.5, 0] as NormalisedPoint, to: [0.5, 1] as NormalisedPoint };
    expect(side(down, [0.2, 0.5])).toBe(1);
    expect(side(down, [0.8, 0.5])).toBe(-1);
    for (const [x, y] of [
      [0.1, 0.9],
      [0.77, 0.01],
      [0.3, 0.3],
    ] as NormalisedPoint[]) {
      const line = { from: [0.1, 0.2] as NormalisedPoint, to: [0.8, 0.6] as NormalisedPoint };
      expect(side(line, [x, y])).toBe(Math.sign((0.8 - 0.1) * (y - 0.2) - (0.6 - 0.2) * (x - 0.1)));
    }
  });

  it('signedDistance is the distance from the line, signed as side', () => {
    expect(signedDistance(horizontal, [0.3, 0.7])).toBeCloseTo(0.2);
    expect(signedDistance(horizontal, [0.3, 0.45])).toBeCloseTo(-0.05);
    const diagonal = { from: [0, 0] as NormalisedPoint, to: [1, 1] as NormalisedPoint };
    expect(signedDistance(diagonal, [0, 1])).toBeCloseTo(Math.SQRT1_2);
  });
});

describe('segments', () => {
  it('segmentsIntersect: crossing, touching, collinear overlap, apart', () => {
    expect(segmentsIntersect([0, 0], [1, 1], [0, 1], [1, 0])).toBe(true);
    expect(segmentsIntersect([0, 0], [1, 0], [0.5, 0], [0.5, 1])).toBe(true); // touching
    expect(segmentsIntersect([0, 0], [1, 0], [0.5, 0], [2, 0])).toBe(true); // collinear overlap
    expect(segmentsIntersect([0, 0], [1, 0], [1.5, 0], [2, 0])).toBe(false); // collinear apart
    expect(segmentsIntersect([0, 0], [1, 0], [0.5, 0.1], [0.5, 1])).toBe(false);
    expect(segmentsIntersect([0, 0], [1, 1], [0, 0.1], [0.8, 0.9])).toBe(false); // parallel
  });

  it('a step crosses the segment only between its ends', () => {
    const line = { from: [0.4, 0.5] as NormalisedPoint, to: [0.6, 0.5] as NormalisedPoint };
    expect(crossingPosition(line, [0.5, 0.4], [0.5, 0.6])).toBeCloseTo(0.5);
    expect(stepCrossesSegment(line, [0.5, 0.4], [0.5, 0.6])).toBe(true);
    expect(stepCrossesSegment(line, [0.7, 0.4], [0.7, 0.6])).toBe(false); // past `to`
    expect(crossingPosition(line, [0.3, 0.4], [0.3, 0.6])).toBeCloseTo(-0.5); // before `from`
    expect(stepCrossesSegment(line, [0.5, 0.4], [0.5, 0.45])).toBe(false); // does not reach it
    expect(crossingPosition(line, [0.1, 0.5], [0.2, 0.5])).toBeUndefined(); // along it
    expect(stepCrossesSegment(line, [0.6, 0.4], [0.6, 0.6])).toBe(true); // through an end
  });

  it('distanceToSegment: to the closest point, ends included', () => {
    expect(distanceToSegment([0.5, 0.7], [0, 0.5], [1, 0.5])).toBeCloseTo(0.2);
    expect(distanceToSegment([1.3, 0.9], [0, 0.5], [1, 0.5])).toBeCloseTo(0.5);
    expect(distanceToSegment([0.3, 0.4], [0, 0], [0, 0])).toBeCloseTo(0.5);
  });
});

describe('polygons', () => {
  it('pointInPolygon, distance to the edge, signed distance', () => {
    expect(pointInPolygon([0.4, 0.4], square)).toBe(true);
    expect(pointInPolygon([0.7, 0.4], square)).toBe(false);
    expect(distanceToPolygonEdge([0.4, 0.3], square)).toBeCloseTo(0.1);
    expect(distanceToPolygonEdge([0.8, 0.4], square)).toBeCloseTo(0.2);
    expect(signedPolygonDistance([0.4, 0.25], square)).toBeCloseTo(0.05);
    expect(signedPolygonDistance([0.4, 0.1], square)).toBeCloseTo(-0.1);
    // A concave polygon (an L): the notch is outside.
    const l: NormalisedPoint[] = [
      [0, 0],
      [0.5, 0],
      [0.5, 0.2],
      [0.2, 0.2],
      [0.2, 0.5],
      [0, 0.5],
    ];
    expect(pointInPolygon([0.1, 0.1], l)).toBe(true);
    expect(pointInPolygon([0.4, 0.4], l)).toBe(false);
    expect(pointInPolygon([0.1, 0.4], l)).toBe(true);
  });

  it('polygonArea is signed by the order of the points', () => {
    expect(polygonArea(square)).toBeCloseTo(0.16);
    expect(polygonArea([...square].reverse())).toBeCloseTo(-0.16);
  });

  it('selfIntersection finds crossing edges, folds and repeated points; none in a simple polygon', () => {
    expect(selfIntersection(square)).toBeUndefined();
    expect(
      selfIntersection([
        [0, 0],
        [1, 1],
        [1, 0],
        [0, 1],
      ]),
    ).toEqual([0, 2]);
    expect(
      selfIntersection([
        [0, 0],
        [0.5, 0],
        [0.2, 0],
        [0.2, 0.5],
      ]),
    ).toBeDefined(); // folds back along itself
    expect(
      selfIntersection([
        [0, 0],
        [0.5, 0],
        [0.5, 0],
        [0.2, 0.5],
      ]),
    ).toBeDefined(); // a repeated point
    expect(
      selfIntersection([
        [0, 0],
        [0.5, 0],
        [0.5, 0.5],
        [0.25, 0],
        [0, 0.5],
      ]),
    ).toBeDefined(); // a corner touching another edge
  });
});

describe('anchorPoint', () => {
  it('each anchor of a pixel box, normalised by the picture size', () => {
    const box: [number, number, number, number] = [100, 60, 200, 300];
    expect(anchorPoint(box, 'bottom-center', 400, 300)).toEqual([150 / 400, 1]);
    expect(anchorPoint(box, 'center', 400, 300)).toEqual([150 / 400, 180 / 300]);
    expect(anchorPoint(box, 'top-center', 400, 300)).toEqual([150 / 400, 60 / 300]);
    expect(anchorPoint(box, 'bottom-left', 400, 300)).toEqual([100 / 400, 1]);
    expect(anchorPoint(box, 'bottom-right', 400, 300)).toEqual([200 / 400, 1]);
  });
});
