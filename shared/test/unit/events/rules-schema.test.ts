import { describe, expect, it } from 'vitest';
import { cameraNameError, isCameraName, parseCameraRules, RulesError } from '../../../src/events/rules-schema.ts';
import { MAX_LABELS, MAX_LINES, MAX_POLYGON_POINTS, MAX_ZONES, type NormalisedPoint } from '../../../src/events/types.ts';

const line = (name: string, extra: object = {}) => ({ name, from: [0.1, 0.5], to: [0.9, 0.5], ...extra });
const triangle: NormalisedPoint[] = [
  [0.1, 0.1],
  [0.9, 0.1],
  [0.5, 0.9],
];
const zone = (name: string, extra: object = {}) => ({ name, polygon: triangle, ...extra });

/** A convex polygon of n points on a circle. */
const circle = (n: number): NormalisedPoint[] =>
  Array.from({ length: n }, (_, k) => [0.5 + 0.4 * Math.cos((2 * Math.PI * k) / n), 0.5 + 0.4 * Math.sin((2 * Math.PI * k) / n)]);

/** The RulesError parseCameraRules throws for `value`. */
function refusal(value: unknown): RulesError {
  try {
    parseCameraRules(value);
  } catch (error) {
    expect(error).toBeInstanceOf(RulesError);
    return error as RulesError;
  }
  throw new Error('accepted');
}

describe('parseCameraRules', () => {
  it('accepts lines and zones with their filters; a missing list is empty', () => {
    const rules = {
      lines: [line('door', { labels: ['person'], minScore: 0.5, anchor: 'center' })],
      zones: [zone('desk', { labels: ['person', 'dog'] })],
    };
    expect(parseCameraRules(rules)).toEqual(rules);
    expect(parseCameraRules({})).toEqual({ lines: [], zones: [] });
    expect(parseCameraRules({ zones: [zone('a')] })).toEqual({ lines: [], zones: [zone('a')] });
    // A line and a zone may share a name; corners of the picture are fine.
    expect(parseCameraRules({ lines: [{ name: 'x', from: [0, 0], to: [1, 1] }], zones: [zone('x')] }).lines).toHaveLength(1);
  });

  it.each(
    (
      [
        [{ lines: [line('a'), line('b'), { ...line('c'), from: [0.1, 1.2] }] }, 'lines[2].from[1]', /0 to 1/],
        [{ lines: [{ ...line('a'), from: [0.1] }] }, 'lines[0].from', /a point \[x, y\]/],
        [{ lines: [{ ...line('a'), from: [0.1, Number.NaN] }] }, 'lines[0].from[1]', /number/],
        [{ lines: [{ name: 'a', to: [0, 0] }] }, 'lines[0].from', /required/],
        [{ lines: [{ ...line('a'), to: [0.1, 0.5] }] }, 'lines[0].to', /differ/],
        [{ lines: [line('a'), line('a')] }, 'lines[1].name', /repeats/],
        [{ lines: [line('')] }, 'lines[0].name', /empty/],
        [{ lines: [line('x'.repeat(65))] }, 'lines[0].name', /64/],
        [{ lines: [{ ...line('a'), form: [0, 0] }] }, 'lines[0].form', /not a field/],
        [{ lines: [line('a', { minScore: 1.5 })] }, 'lines[0].minScore', /0 to 1/],
        [{ lines: [line('a', { anchor: 'feet' })] }, 'lines[0].anchor', /bottom-center/],
        [{ lines: [line('a', { labels: ['person', ''] })] }, 'lines[0].labels[1]', /empty/],
        [{ lines: [line('a', { labels: ['x'.repeat(65)] })] }, 'lines[0].labels[0]', /64/],
        [{ lines: [line('a', { labels: Array.from({ length: MAX_LABELS + 1 }, (_, i) => `l${i}`) })] }, 'lines[0].labels', /at most 100/],
        [{ lines: Array.from({ length: MAX_LINES + 1 }, (_, i) => line(`l${i}`)) }, 'lines', /at most 32/],
        [{ zones: Array.from({ length: MAX_ZONES + 1 }, (_, i) => zone(`z${i}`)) }, 'zones', /at most 32/],
        [{ zones: [zone('a'), zone('a')] }, 'zones[1].name', /repeats/],
        [{ zones: [zone('a', { polygon: triangle.slice(0, 2) })] }, 'zones[0].polygon', /3 to 64/],
        [{ zones: [zone('a', { polygon: circle(MAX_POLYGON_POINTS + 1) })] }, 'zones[0].polygon', /3 to 64/],
        [
          {
            zones: [
              zone('a', {
                polygon: [
                  [0, 0],
                  [1, 1],
                  [1, 0],
                  [0, 1],
                ],
              }),
            ],
          },
          'zones[0].polygon',
          /intersect itself \(edges 0-1 and 2-3/,
        ],
        [
          {
            zones: [
              zone('a', {
                polygon: [
                  [0, 0],
                  [0.5, 0.5],
                  [1, 1],
                ],
              }),
            ],
          },
          'zones[0].polygon',
          /area/,
        ],
        [
          {
            zones: [
              zone('a', {
                polygon: [
                  [0, 0],
                  [0.5, 'x'],
                  [1, 1],
                ],
              }),
            ],
          },
          'zones[0].polygon[1][1]',
          /number/,
        ],
        [{ zones: [{ name: 'a', points: triangle }] }, 'zones[0].points', /not a field/],
        [{ line: [] }, 'line', /not a field/],
        [{ lines: {} }, 'lines', /list/],
      ] as Array<[unknown, string, RegExp]>
    ).map(([value, field, reason]) => [field, reason, value] as const),
  )('names %s when it is wrong (%s)', (field, reason, value) => {
    const error = refusal(value);
    expect(error.field).toBe(field);
    expect(error.message).toContain(field);
    expect(error.message).toMatch(reason);
  });

  it('refuses what is not an object, with a message and an empty field', () => {
    for (const value of [null, [], 'rules', 3, undefined]) {
      const error = refusal(value);
      expect(error.field).toBe('');
      expect(error.message).toMatch(/must be an object/);
    }
  });

  it('takes a polygon of 64 points, and every limit at once', () => {
    const rules = {
      lines: Array.from({ length: MAX_LINES }, (_, i) => line(`l${i}`, { labels: Array.from({ length: MAX_LABELS }, (_, k) => `x${k}`) })),
      zones: Array.from({ length: MAX_ZONES }, (_, i) => zone(`z${i}`, { polygon: circle(MAX_POLYGON_POINTS) })),
    };
    expect(parseCameraRules(rules).zones[31]!.polygon).toHaveLength(64);
  });

  it('refuses huge input quickly (a list past its limit is refused before its items are checked)', () => {
    const points = { zones: [zone('a', { polygon: Array.from({ length: 200_000 }, () => [0.5, 0.5]) })] };
    const lines = { lines: Array.from({ length: 100_000 }, (_, i) => line(`l${i}`)) };
    const started = performance.now();
    expect(refusal(points).field).toBe('zones[0].polygon');
    expect(refusal(lines).field).toBe('lines');
    expect(performance.now() - started).toBeLessThan(500); // about 1 ms each: nothing in them is looked at
  });
});

describe('camera names', () => {
  it('1-64 letters, digits, _ . -, starting with a letter or digit', () => {
    for (const name of ['default', 'door-1', 'A.b_c', '9', 'x'.repeat(64)]) {
      expect(isCameraName(name)).toBe(true);
      expect(cameraNameError(name)).toBeUndefined();
    }
    for (const name of ['', '-door', 'a b', 'caméra', 'x'.repeat(65), 'a/b', '.hidden']) {
      expect(isCameraName(name)).toBe(false);
      expect(cameraNameError(name)).toMatch(/camera name must be 1-64 characters/);
    }
    expect(cameraNameError('x'.repeat(1000))!.length).toBeLessThan(250);
  });
});
