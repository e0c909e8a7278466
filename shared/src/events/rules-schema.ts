/**
 * Checking a camera's rules as a client sends them (`PUT /api/cameras/NAME/rules`, `pnpm events --rules`): strict,
 * so a misspelt field is refused, and every refusal names the field (`lines[2].from`) and what is wrong with it.
 * Bounded: every list has a limit, checked before its items, so a huge body costs little to refuse.
 */
import { z } from 'zod';
import { CAMERA_NAME_PATTERN } from '../protocol-constants.ts';
import { polygonArea, selfIntersection } from './geometry.ts';
import {
  ANCHORS,
  MAX_LABEL_LENGTH,
  MAX_LABELS,
  MAX_LINES,
  MAX_POLYGON_POINTS,
  MAX_RULE_NAME_LENGTH,
  MAX_ZONES,
  type CameraRules,
  type NormalisedPoint,
} from './types.ts';

/** Rules that cannot be used: `field` is where (`lines[2].from`, `zones[0].polygon`), `message` says what is wrong there. */
export class RulesError extends Error {
  override readonly name = 'RulesError';
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(field === '' ? reason : `${field}: ${reason}`);
  }
}

/** A polygon's area must be at least this (normalised units², a thousandth of a pixel on a 640x480 picture). */
const MIN_POLYGON_AREA = 1e-9;

type Message = string | ((issue: { input?: unknown }) => string);
const required =
  (what: string): Message =>
  (issue) =>
    issue.input === undefined ? 'is required' : `must be ${what}`;

const coordinate = z
  .number({ error: required('a number from 0 to 1') })
  .min(0, 'must be a number from 0 to 1')
  .max(1, 'must be a number from 0 to 1');
const isPoint = (p: unknown): p is NormalisedPoint =>
  Array.isArray(p) && p.length === 2 && p.every((v) => typeof v === 'number' && v >= 0 && v <= 1);
const point = z.tuple([coordinate, coordinate], { error: required('a point [x, y], normalised to 0..1') });

function list<T extends z.ZodType>(item: T, what: string, min: number, max: number) {
  const count = min === 0 ? `at most ${max}` : `${min} to ${max}`;
  return z
    .array(item, { error: required(`a list of ${what}`) })
    .min(min, `must have ${count} ${what}`)
    .max(max, `must have ${count} ${what}`);
}

const name = z
  .string({ error: required('a string') })
  .min(1, 'must not be empty')
  .max(MAX_RULE_NAME_LENGTH, `must be at most ${MAX_RULE_NAME_LENGTH} characters`);

const filter = {
  labels: list(
    z
      .string({ error: required('a string') })
      .min(1, 'must not be empty')
      .max(MAX_LABEL_LENGTH, `must be at most ${MAX_LABEL_LENGTH} characters`),
    'labels',
    0,
    MAX_LABELS,
  ).optional(),
  minScore: z
    .number({ error: required('a number from 0 to 1') })
    .min(0, 'must be a number from 0 to 1')
    .max(1, 'must be a number from 0 to 1')
    .optional(),
  anchor: z.enum(ANCHORS, { error: `must be one of ${ANCHORS.join(', ')}` }).optional(),
};

const lineSchema = z
  .strictObject({ name, from: point, to: point, ...filter }, { error: required('an object {name, from, to}') })
  .check((ctx) => {
    const { from, to } = ctx.value;
    if (from[0] === to[0] && from[1] === to[1])
      ctx.issues.push({ code: 'custom', input: to, path: ['to'], message: 'must differ from `from`' });
  });

const polygon = list(point, 'points', 3, MAX_POLYGON_POINTS).check((ctx) => {
  const points = ctx.value as NormalisedPoint[];
  if (!points.every(isPoint)) return; // refused by the points' own checks
  const a = points[0]!;
  const b = points.find((q) => q[0] !== a[0] || q[1] !== a[1]);
  const collinear = !b || points.every((q) => (b[0] - a[0]) * (q[1] - a[1]) - (b[1] - a[1]) * (q[0] - a[0]) === 0);
  const crossing = collinear ? undefined : selfIntersection(points);
  if (collinear || (!crossing && Math.abs(polygonArea(points)) < MIN_POLYGON_AREA)) {
    ctx.issues.push({ code: 'custom', input: points, message: 'must enclose an area (its points are in a line)' });
  } else if (crossing) {
    const [i, j] = crossing;
    const edge = (k: number) => `${k}-${(k + 1) % points.length}`;
    ctx.issues.push({ code: 'custom', input: points, message: `must not intersect itself (edges ${edge(i)} and ${edge(j)} meet)` });
  }
});

const zoneSchema = z.strictObject({ name, polygon, ...filter }, { error: required('an object {name, polygon}') });

/** Names must be unique within a list: the second of two equal names is refused. */
function uniqueNames(ctx: { value: Array<{ name: string }>; issues: z.core.$ZodRawIssue[] }) {
  const seen = new Set<string>();
  ctx.value.forEach((rule, i) => {
    if (typeof rule?.name !== 'string') return;
    if (seen.has(rule.name))
      ctx.issues.push({ code: 'custom', input: rule.name, path: [i, 'name'], message: `repeats the name "${rule.name}"` });
    seen.add(rule.name);
  });
}

export const cameraRulesSchema = z.strictObject(
  {
    lines: list(lineSchema, 'lines', 0, MAX_LINES).check(uniqueNames).default([]),
    zones: list(zoneSchema, 'zones', 0, MAX_ZONES).check(uniqueNames).default([]),
  },
  { error: 'must be an object {lines, zones}' },
);

/** `lines[2].from`, `zones[0].polygon[3][1]`. */
function fieldOf(path: readonly PropertyKey[]): string {
  let field = '';
  for (const key of path) field += typeof key === 'number' ? `[${key}]` : field === '' ? String(key) : `.${String(key)}`;
  return field;
}

/** The error for the first thing wrong. */
function rulesErrorOf(issue: z.core.$ZodIssue): RulesError {
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    return new RulesError(fieldOf([...issue.path, key]), 'is not a field of rules (misspelt?)');
  }
  const field = fieldOf(issue.path);
  return new RulesError(field, field === '' ? `rules ${issue.message}` : issue.message);
}

/** The rules in `value` (parsed JSON), checked; throws RulesError naming the first field that is wrong. */
export function parseCameraRules(value: unknown): CameraRules {
  const result = cameraRulesSchema.safeParse(value);
  if (!result.success) {
    // A misspelt key also leaves the field it meant missing: name the misspelling.
    const issues = result.error.issues;
    throw rulesErrorOf(issues.find((issue) => issue.code === 'unrecognized_keys') ?? issues[0]!);
  }
  return result.data;
}

/** Whether `name` is a camera's name: 1-64 letters, digits, `_`, `.`, `-`, starting with a letter or digit. */
export function isCameraName(name: string): boolean {
  return CAMERA_NAME_PATTERN.test(name);
}

/** Why `name` is not a camera's name, or undefined if it is one. */
export function cameraNameError(name: string): string | undefined {
  if (isCameraName(name)) return undefined;
  const shown = name.length > 80 ? `${JSON.stringify(name.slice(0, 80))}...` : JSON.stringify(name);
  return `camera name must be 1-64 characters (letters, digits, _, . and -), starting with a letter or digit (got ${shown})`;
}
