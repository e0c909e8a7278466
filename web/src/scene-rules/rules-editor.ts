/**
 * The rules editor as a pure reducer: a draft of the camera's rules, the tool in hand (select, line, zone), what is
 * selected, a line or zone being drawn, and a point or rule being dragged. Pointer actions carry the pointer in
 * element pixels and the picture's view (rule-geometry.ts), so the same code serves a mouse, a finger and a pen
 * (Pointer Events) and is unit-tested without a DOM.
 *
 * - Select: a point's handle drags that point, a rule's body (a line's stroke, a zone's inside or edge) drags the
 *   whole rule; empty picture clears the selection.
 * - Line: press and drag from one end to the other; or tap one end, then the other (a phone without precision).
 * - Zone: tap its corners; tap the first again (or Finish) to close it.
 *
 * The draft starts from the rules the gateway holds (`base`); it is dirty while it differs from them. Rules from
 * the gateway (GET, the SSE `rules` event of any dashboard's save, a PUT's answer) replace a clean draft; a dirty
 * one is kept, and `stale` says that the gateway's changed meanwhile.
 */
import {
  MAX_LINES,
  MAX_POLYGON_POINTS,
  MAX_RULE_NAME_LENGTH,
  MAX_ZONES,
  selfIntersection,
  type CameraRules,
  type LineRule,
  type NormalisedPoint,
  type ZoneRule,
} from '@sightline/shared/events';
import {
  HANDLE_RADIUS_PX,
  hitTest,
  moveRule,
  moveVertex,
  onPicture,
  ruleAt,
  screenLength,
  toPicture,
  type Hit,
  type PictureView,
  type RuleRef,
  type ScreenPoint,
} from './rule-geometry.ts';

export type Tool = 'select' | 'line' | 'zone';

export type Sketch =
  /** `pressed`: the pointer is down (dragging `to`); released after a tap, the next tap places `to`. */
  | { kind: 'line'; from: NormalisedPoint; to: NormalisedPoint; pressed: boolean }
  | { kind: 'zone'; points: NormalisedPoint[]; cursor?: NormalisedPoint };

interface Drag {
  hit: Hit;
  /** Where the pointer went down, on the picture and on screen. */
  start: NormalisedPoint;
  startAt: ScreenPoint;
  original: LineRule | ZoneRule;
  moved: boolean;
}

export interface EditorState {
  editing: boolean;
  tool: Tool;
  /** The draft. */
  rules: CameraRules;
  /** The rules as the gateway holds them, which the draft started from. */
  base: CameraRules;
  selected?: RuleRef;
  sketch?: Sketch;
  drag?: Drag;
  /** The gateway's rules changed (another dashboard saved) while this draft had changes of its own. */
  stale: boolean;
  /** Why the last drawing step was refused, in words. */
  problem?: string;
}

export type EditorAction =
  | { type: 'open' }
  /** Leaves edit mode; unsaved changes are dropped. */
  | { type: 'close' }
  | { type: 'tool'; tool: Tool }
  | { type: 'down' | 'move' | 'up'; at: ScreenPoint; view: PictureView }
  /** Escape: the line or zone being drawn, or the drag, is dropped. */
  | { type: 'cancel' }
  | { type: 'finish-zone' }
  | { type: 'delete' }
  | { type: 'rename'; name: string }
  | { type: 'labels'; labels: string[] | undefined }
  | { type: 'select'; ref: RuleRef | undefined }
  /** Rules from the gateway: its GET, an SSE `rules` event, a PUT's answer. */
  | { type: 'server'; rules: CameraRules }
  /** The draft back to the gateway's rules. */
  | { type: 'revert' }
  /** Another camera: nothing of the last one's kept. */
  | { type: 'reset' };

export const EMPTY_RULES: CameraRules = { lines: [], zones: [] };

/** A pointer that moved less than this (element px) since it went down tapped; it did not drag. */
export const TAP_SLOP_PX = 4;
/** A line shorter than this on screen is a tap, not a line. */
export const MIN_LINE_PX = 16;

export function initialEditor(rules: CameraRules = EMPTY_RULES): EditorState {
  return { editing: false, tool: 'select', rules, base: rules, stale: false };
}

/** Keys sorted at every level: the gateway may write a rule's fields in another order. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => [k, canonical(v)]),
    );
  }
  return value;
}

/** The lines and zones of rules, nothing else (a CameraRulesResponse also has `camera`, `updatedAt`). */
export function rulesOnly(rules: CameraRules): CameraRules {
  return { lines: rules.lines, zones: rules.zones };
}

export function sameRules(a: CameraRules, b: CameraRules): boolean {
  return JSON.stringify(canonical(rulesOnly(a))) === JSON.stringify(canonical(rulesOnly(b)));
}

export function isDirty(state: EditorState): boolean {
  return !sameRules(state.rules, state.base);
}

/** `line-1`, `line-2`, …: the first free name of that kind. */
export function nextName(rules: CameraRules, kind: 'line' | 'zone'): string {
  const taken = new Set((kind === 'line' ? rules.lines : rules.zones).map((rule) => rule.name));
  for (let n = 1; ; n++) if (!taken.has(`${kind}-${n}`)) return `${kind}-${n}`;
}

function withRule(state: EditorState, ref: RuleRef, rule: LineRule | ZoneRule): EditorState {
  const rules =
    ref.kind === 'line'
      ? { ...state.rules, lines: state.rules.lines.map((line, i) => (i === ref.index ? (rule as LineRule) : line)) }
      : { ...state.rules, zones: state.rules.zones.map((zone, i) => (i === ref.index ? (rule as ZoneRule) : zone)) };
  return { ...state, rules };
}

function addLine(state: EditorState, from: NormalisedPoint, to: NormalisedPoint): EditorState {
  if (state.rules.lines.length >= MAX_LINES) return { ...state, sketch: undefined, problem: `A camera has at most ${MAX_LINES} lines.` };
  const line: LineRule = { name: nextName(state.rules, 'line'), from, to };
  return withAdded(state, { ...state.rules, lines: [...state.rules.lines, line] }, { kind: 'line', index: state.rules.lines.length });
}

function addZone(state: EditorState, polygon: NormalisedPoint[]): EditorState {
  if (state.rules.zones.length >= MAX_ZONES) return { ...state, sketch: undefined, problem: `A camera has at most ${MAX_ZONES} zones.` };
  // Kept as drawn, so a corner can be added or the drawing dropped (Escape).
  if (selfIntersection(polygon))
    return { ...state, problem: 'A zone’s edges must not cross: close it elsewhere, or Escape to start again.' };
  const zone: ZoneRule = { name: nextName(state.rules, 'zone'), polygon };
  return withAdded(state, { ...state.rules, zones: [...state.rules.zones, zone] }, { kind: 'zone', index: state.rules.zones.length });
}

/** The rules with one just drawn: the drawing done, the new rule selected, the Select tool back. */
function withAdded(state: EditorState, rules: CameraRules, added: RuleRef): EditorState {
  return { ...state, rules, sketch: undefined, problem: undefined, tool: 'select', selected: added };
}

/** The selection, kept only while it still names a rule. */
function keepSelection(state: EditorState): EditorState {
  return state.selected && !ruleAt(state.rules, state.selected) ? { ...state, selected: undefined } : state;
}

function pointerDown(state: EditorState, at: ScreenPoint, view: PictureView): EditorState {
  const point = toPicture(at, view);
  const clean: EditorState = { ...state, problem: undefined };
  switch (state.tool) {
    case 'select': {
      const hit = hitTest(state.rules, view, at, state.selected);
      if (!hit) return { ...clean, selected: undefined };
      const original = ruleAt(state.rules, hit.ref)!;
      return { ...clean, selected: hit.ref, drag: { hit, start: point, startAt: at, original, moved: false } };
    }
    case 'line': {
      const sketch = state.sketch?.kind === 'line' ? state.sketch : undefined;
      if (sketch) return { ...clean, sketch: { ...sketch, to: point, pressed: true } };
      // A press off the picture (on the bars beside a letterboxed one) starts nothing.
      return onPicture(at, view) ? { ...clean, sketch: { kind: 'line', from: point, to: point, pressed: true } } : clean;
    }
    case 'zone':
      return state.sketch?.kind === 'zone' ? { ...clean, sketch: { ...state.sketch, cursor: point } } : clean;
  }
}

function pointerMove(state: EditorState, at: ScreenPoint, view: PictureView): EditorState {
  const point = toPicture(at, view);
  const { drag, sketch } = state;
  if (drag) {
    const moved = drag.moved || Math.hypot(at[0] - drag.startAt[0], at[1] - drag.startAt[1]) > TAP_SLOP_PX;
    if (!moved) return state;
    const rule =
      drag.hit.part === 'vertex'
        ? moveVertex(drag.original, drag.hit.vertex, point)
        : moveRule(drag.original, point[0] - drag.start[0], point[1] - drag.start[1]);
    return { ...withRule(state, drag.hit.ref, rule), drag: { ...drag, moved } };
  }
  if (sketch?.kind === 'line') return { ...state, sketch: { ...sketch, to: point } };
  if (sketch?.kind === 'zone') return { ...state, sketch: { ...sketch, cursor: point } };
  return state;
}

function pointerUp(state: EditorState, at: ScreenPoint, view: PictureView): EditorState {
  if (state.drag) return { ...pointerMove(state, at, view), drag: undefined };
  const point = toPicture(at, view);
  const { sketch } = state;
  if (state.tool === 'line' && sketch?.kind === 'line') {
    if (screenLength(sketch.from, point, view) >= MIN_LINE_PX) return addLine(state, sketch.from, point);
    // A tap: the line starts here, and the next tap (or a press and drag) ends it.
    return { ...state, sketch: { ...sketch, to: point, pressed: false } };
  }
  if (state.tool === 'zone') {
    if (!sketch && !onPicture(at, view)) return state;
    const points = sketch?.kind === 'zone' ? sketch.points : [];
    const near = (p: NormalisedPoint | undefined) => p !== undefined && screenLength(p, point, view) <= HANDLE_RADIUS_PX;
    if (points.length >= 3 && near(points[0])) return addZone(state, points);
    // A second tap on the last corner (a double tap) adds nothing.
    if (near(points[points.length - 1])) return state;
    if (points.length >= MAX_POLYGON_POINTS) return { ...state, problem: `A zone has at most ${MAX_POLYGON_POINTS} corners: close it.` };
    return { ...state, problem: undefined, sketch: { kind: 'zone', points: [...points, point] } };
  }
  return state;
}

/** Drops the drawing in progress and the drag (a dragged rule goes back where it was). */
function cancel(state: EditorState): EditorState {
  const { drag } = state;
  const rest: EditorState = { ...state, sketch: undefined, drag: undefined, problem: undefined };
  return drag ? withRule(rest, drag.hit.ref, drag.original) : rest;
}

export function editorReducer(state: EditorState, action: EditorAction): EditorState {
  switch (action.type) {
    case 'open':
      return state.editing ? state : { ...initialEditor(state.base), editing: true };
    case 'close':
      return initialEditor(state.base);
    case 'tool':
      // Drawing a new rule: the one selected is let go (its fields would stand for the new one).
      return { ...cancel(state), tool: action.tool, selected: action.tool === 'select' ? state.selected : undefined };
    case 'down':
      return state.editing ? pointerDown(state, action.at, action.view) : state;
    case 'move':
      return state.editing ? pointerMove(state, action.at, action.view) : state;
    case 'up':
      return state.editing ? pointerUp(state, action.at, action.view) : state;
    case 'cancel':
      return cancel(state);
    case 'finish-zone': {
      const { sketch } = state;
      return sketch?.kind === 'zone' && sketch.points.length >= 3 ? addZone(state, sketch.points) : state;
    }
    case 'delete': {
      const { selected } = state;
      if (!selected) return state;
      const rules =
        selected.kind === 'line'
          ? { ...state.rules, lines: state.rules.lines.filter((_, i) => i !== selected.index) }
          : { ...state.rules, zones: state.rules.zones.filter((_, i) => i !== selected.index) };
      return { ...state, rules, selected: undefined, drag: undefined };
    }
    case 'rename': {
      const rule = state.selected && ruleAt(state.rules, state.selected);
      if (!state.selected || !rule) return state;
      return withRule(state, state.selected, { ...rule, name: action.name.slice(0, MAX_RULE_NAME_LENGTH) });
    }
    case 'labels': {
      const rule = state.selected && ruleAt(state.rules, state.selected);
      if (!state.selected || !rule) return state;
      const { labels: _labels, ...rest } = rule;
      return withRule(state, state.selected, action.labels && action.labels.length > 0 ? { ...rest, labels: action.labels } : rest);
    }
    case 'select':
      return { ...state, selected: action.ref && ruleAt(state.rules, action.ref) ? action.ref : undefined };
    case 'server': {
      const rules = rulesOnly(action.rules);
      // This page's own changes (while editing) are kept, and said to be behind the gateway's.
      if (state.editing && isDirty(state) && !sameRules(state.rules, rules)) return { ...state, base: rules, stale: true };
      return keepSelection({ ...state, rules, base: rules, stale: false, drag: undefined });
    }
    case 'reset':
      return initialEditor();
    case 'revert':
      return keepSelection({ ...state, rules: state.base, sketch: undefined, drag: undefined, problem: undefined, stale: false });
  }
}

/** `person, car` -> ['person', 'car']; nothing -> undefined (every label). */
export function parseLabels(text: string): string[] | undefined {
  const labels = [
    ...new Set(
      text
        .split(',')
        .map((label) => label.trim())
        .filter((label) => label !== ''),
    ),
  ];
  return labels.length > 0 ? labels : undefined;
}
