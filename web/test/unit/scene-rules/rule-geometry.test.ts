import { describe, expect, it } from 'vitest';
import { side, type CameraRules, type LineRule, type NormalisedPoint } from '@sightline/shared/events';
import {
  badgePlacement,
  hitTest,
  inArrow,
  moveRule,
  moveVertex,
  onPicture,
  pictureView,
  toPicture,
  toScreen,
  type PictureView,
} from '../../../src/scene-rules/rule-geometry.ts';

/** A 640x480 picture in a 1000x500 element: letterboxed to 666.67x500 at x = 166.67. */
const plain = pictureView(1000, 500, { width: 640, height: 480 }, false);
const mirrored = pictureView(1000, 500, { width: 640, height: 480 }, true);

const line = (from: NormalisedPoint, to: NormalisedPoint): LineRule => ({ name: 'l', from, to });

describe('picture and screen', () => {
  it('puts the picture in its letterboxed content box, and mirrors it about the element’s centre', () => {
    expect(plain.content.x).toBeCloseTo(166.667, 2);
    expect(plain.content.width).toBeCloseTo(666.667, 2);
    expect(toScreen([0, 0], plain)[0]).toBeCloseTo(166.667, 2);
    expect(toScreen([0, 0], plain)[1]).toBeCloseTo(0, 6);
    expect(toScreen([1, 1], plain)[0]).toBeCloseTo(833.333, 2);
    // Mirrored: the picture's left edge is on the screen's right.
    expect(toScreen([0, 0], mirrored)[0]).toBeCloseTo(833.333, 2);
    expect(toScreen([0.5, 0.5], mirrored)[0]).toBeCloseTo(500, 6);
    expect(toScreen([0.5, 0.5], mirrored)[1]).toBeCloseTo(250, 6);
  });

  it('maps a screen point back to the same picture point, mirrored or not, kept on the picture', () => {
    for (const view of [plain, mirrored]) {
      for (const point of [
        [0.1, 0.2],
        [0.75, 0.9],
        [0.5, 0.5],
      ] as NormalisedPoint[]) {
        const back = toPicture(toScreen(point, view), view);
        expect(back[0]).toBeCloseTo(point[0], 5);
        expect(back[1]).toBeCloseTo(point[1], 5);
      }
      // Beside the picture (on the bars) is its edge.
      expect(toPicture([10, 600], view)).toEqual(view.mirror ? [1, 1] : [0, 1]);
    }
    // Screen x = 250 is a quarter of the way across the picture not mirrored, three quarters mirrored.
    expect(toPicture([plain.content.x + plain.content.width / 4, 0], plain)[0]).toBeCloseTo(0.25, 5);
    expect(toPicture([plain.content.x + plain.content.width / 4, 0], mirrored)[0]).toBeCloseTo(0.75, 5);
  });

  it('tells the picture from the bars beside it', () => {
    expect(onPicture([500, 250], plain)).toBe(true);
    expect(onPicture([50, 250], plain)).toBe(false);
    expect(onPicture([950, 250], mirrored)).toBe(false);
  });
});

describe('the in arrow', () => {
  /** The arrow's tip, back on the picture: the side a track ends on when it crosses `in`. */
  const tipSide = (rule: LineRule, view: PictureView) => side(rule, toPicture(inArrow(rule, view, 20).tip, view));

  it('points at side +1 (where negative -> positive ends), for lines in every direction, mirrored or not', () => {
    const lines = [
      line([0.5, 0.1], [0.5, 0.9]),
      line([0.5, 0.9], [0.5, 0.1]),
      line([0.1, 0.5], [0.9, 0.5]),
      line([0.9, 0.5], [0.1, 0.5]),
      line([0.2, 0.2], [0.8, 0.7]),
      line([0.8, 0.1], [0.3, 0.9]),
    ];
    for (const rule of lines) {
      expect(tipSide(rule, plain), `${rule.from} -> ${rule.to}`).toBe(1);
      expect(tipSide(rule, mirrored), `${rule.from} -> ${rule.to}, mirrored`).toBe(1);
    }
  });

  it('is the issue’s definition worked by hand: a line drawn top to bottom has its in side on the left of the picture', () => {
    // from (0.5, 0) to (0.5, 1): side(p) = sign(0 * … - 1 * (p.x - 0.5)) = +1 for p.x < 0.5.
    const down = line([0.5, 0], [0.5, 1]);
    expect(side(down, [0.4, 0.5])).toBe(1);
    const { base, tip } = inArrow(down, plain, 20);
    expect(tip[0] - base[0]).toBeCloseTo(-20, 5);
    expect(tip[1] - base[1]).toBeCloseTo(0, 5);
    // Mirrored, the picture's left is the screen's right: the arrow points right on screen.
    const flipped = inArrow(down, mirrored, 20);
    expect(flipped.tip[0] - flipped.base[0]).toBeCloseTo(20, 5);
    // Left to right: in is below (y down).
    const across = inArrow(line([0, 0.5], [1, 0.5]), plain, 20);
    expect(across.tip[1] - across.base[1]).toBeCloseTo(20, 5);
  });

  it('starts at the line’s middle, is `length` px long and square to the line on screen', () => {
    const rule = line([0.2, 0.2], [0.8, 0.7]);
    const { base, tip } = inArrow(rule, plain, 30);
    const [ax, ay] = toScreen(rule.from, plain);
    const [bx, by] = toScreen(rule.to, plain);
    expect(base[0]).toBeCloseTo((ax + bx) / 2, 5);
    expect(Math.hypot(tip[0] - base[0], tip[1] - base[1])).toBeCloseTo(30, 5);
    expect((tip[0] - base[0]) * (bx - ax) + (tip[1] - base[1]) * (by - ay)).toBeCloseTo(0, 5);
  });
});

describe('a line’s badge', () => {
  it('sits on the out side, growing away from the line, so it covers neither the line nor the arrow', () => {
    const down = line([0.5, 0.1], [0.5, 0.9]);
    const lineX = toScreen([0.5, 0.5], plain)[0];
    // Not mirrored, `in` is the screen's left: the badge is on the right, growing right.
    expect(badgePlacement(down, plain, 10)).toMatchObject({ shiftX: 0, shiftY: -0.5 });
    expect(badgePlacement(down, plain, 10).at[0]).toBeCloseTo(lineX + 10, 5);
    // Mirrored, the other way round.
    expect(badgePlacement(down, mirrored, 10)).toMatchObject({ shiftX: -1, shiftY: -0.5 });
    // Left to right: `in` is below, the badge above, growing up.
    expect(badgePlacement(line([0.1, 0.5], [0.9, 0.5]), plain, 10)).toMatchObject({ shiftX: -0.5, shiftY: -1 });
  });
});

describe('hitTest', () => {
  const rules: CameraRules = {
    lines: [line([0.5, 0.1], [0.5, 0.9])],
    zones: [
      {
        name: 'z',
        polygon: [
          [0.1, 0.1],
          [0.4, 0.1],
          [0.4, 0.4],
          [0.1, 0.4],
        ],
      },
    ],
  };

  it('finds a point’s handle within its radius, then a line near its stroke, then a zone holding the point', () => {
    const end = toScreen([0.5, 0.9], plain);
    expect(hitTest(rules, plain, [end[0] + 10, end[1] + 5])).toEqual({ ref: { kind: 'line', index: 0 }, part: 'vertex', vertex: 1 });
    const middle = toScreen([0.5, 0.5], plain);
    expect(hitTest(rules, plain, [middle[0] + 10, middle[1]])).toEqual({ ref: { kind: 'line', index: 0 }, part: 'body' });
    expect(hitTest(rules, plain, [middle[0] + 40, middle[1]])).toBeUndefined();
    expect(hitTest(rules, plain, toScreen([0.25, 0.25], plain))).toEqual({ ref: { kind: 'zone', index: 0 }, part: 'body' });
    expect(hitTest(rules, plain, toScreen([0.1, 0.4], plain))).toEqual({ ref: { kind: 'zone', index: 0 }, part: 'vertex', vertex: 3 });
  });

  it('hits what is shown where the pointer is when the view is mirrored', () => {
    // The zone is on the picture's left: mirrored, on the screen's right.
    const at = toScreen([0.25, 0.25], mirrored);
    expect(at[0]).toBeGreaterThan(500);
    expect(hitTest(rules, mirrored, at)).toEqual({ ref: { kind: 'zone', index: 0 }, part: 'body' });
    expect(hitTest(rules, plain, at)).toBeUndefined();
  });

  it('prefers the selected rule’s handle over another rule’s nearer one', () => {
    const two: CameraRules = { lines: [line([0.5, 0.5], [0.9, 0.5]), line([0.51, 0.5], [0.51, 0.9])], zones: [] };
    const at = toScreen([0.508, 0.5], plain);
    expect(hitTest(two, plain, at)).toMatchObject({ ref: { kind: 'line', index: 1 }, part: 'vertex' });
    expect(hitTest(two, plain, at, { kind: 'line', index: 0 })).toMatchObject({
      ref: { kind: 'line', index: 0 },
      part: 'vertex',
      vertex: 0,
    });
  });
});

describe('moving', () => {
  it('moves a rule whole, stopping at the picture’s edges with its shape kept', () => {
    const rule = line([0.2, 0.3], [0.6, 0.5]);
    expect(moveRule(rule, 0.1, 0.1)).toMatchObject({ from: [0.3, 0.4], to: [0.7, 0.6] });
    expect(moveRule(rule, 0.9, -0.9)).toMatchObject({ from: [0.6, 0], to: [1, 0.2] });
    const zone = {
      name: 'z',
      polygon: [
        [0.1, 0.1],
        [0.3, 0.1],
        [0.2, 0.3],
      ] as NormalisedPoint[],
    };
    expect(moveRule(zone, -0.5, 0).polygon).toEqual([
      [0, 0.1],
      [0.2, 0.1],
      [0.1, 0.3],
    ]);
  });

  it('moves one point', () => {
    expect(moveVertex(line([0.2, 0.3], [0.6, 0.5]), 1, [0.9, 0.9])).toMatchObject({ from: [0.2, 0.3], to: [0.9, 0.9] });
    expect(moveVertex(line([0.2, 0.3], [0.6, 0.5]), 0, [0, 0])).toMatchObject({ from: [0, 0], to: [0.6, 0.5] });
  });
});
