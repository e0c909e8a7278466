import { describe, expect, it } from 'vitest';
import type { CameraRules, NormalisedPoint } from '@sightline/shared/events';
import { pictureView, toScreen, type ScreenPoint } from '../../../src/scene-rules/rule-geometry.ts';
import {
  editorReducer,
  initialEditor,
  isDirty,
  nextName,
  parseLabels,
  sameRules,
  type EditorAction,
  type EditorState,
} from '../../../src/scene-rules/rules-editor.ts';

/** A 640x480 picture filling an 800x600 element: 1.25 px per picture px. */
const view = pictureView(800, 600, { width: 640, height: 480 }, false);
const mirrored = pictureView(800, 600, { width: 640, height: 480 }, true);

const at = (point: NormalisedPoint, v = view): ScreenPoint => toScreen(point, v);

function run(state: EditorState, ...actions: EditorAction[]): EditorState {
  return actions.reduce(editorReducer, state);
}

/** Press at `from`, move through the middle, release at `to`. */
function drag(from: NormalisedPoint, to: NormalisedPoint, v = view): EditorAction[] {
  const mid: NormalisedPoint = [(from[0] + to[0]) / 2, (from[1] + to[1]) / 2];
  return [
    { type: 'down', at: at(from, v), view: v },
    { type: 'move', at: at(mid, v), view: v },
    { type: 'move', at: at(to, v), view: v },
    { type: 'up', at: at(to, v), view: v },
  ];
}

const tap = (point: NormalisedPoint, v = view): EditorAction[] => [
  { type: 'down', at: at(point, v), view: v },
  { type: 'up', at: at(point, v), view: v },
];

const editing = (rules?: CameraRules) => run(initialEditor(rules), { type: 'open' });

describe('drawing a line', () => {
  it('by pressing at one end and dragging to the other: the line is added, selected, and the tool is select again', () => {
    const state = run(editing(), { type: 'tool', tool: 'line' }, ...drag([0.5, 0.1], [0.5, 0.9]));
    expect(state.rules.lines).toEqual([{ name: 'line-1', from: [0.5, 0.1], to: [0.5, 0.9] }]);
    expect(state.selected).toEqual({ kind: 'line', index: 0 });
    expect(state.tool).toBe('select');
    expect(state.sketch).toBeUndefined();
    expect(isDirty(state)).toBe(true);
  });

  it('by tapping one end and then the other (a phone)', () => {
    let state = run(editing(), { type: 'tool', tool: 'line' }, ...tap([0.2, 0.2]));
    expect(state.rules.lines).toEqual([]);
    expect(state.sketch).toMatchObject({ kind: 'line', from: [0.2, 0.2], pressed: false });
    state = run(state, ...tap([0.8, 0.6]));
    expect(state.rules.lines).toEqual([{ name: 'line-1', from: [0.2, 0.2], to: [0.8, 0.6] }]);
  });

  it('in picture coordinates when the view is mirrored: a stroke on the screen’s left is on the picture’s right', () => {
    const state = run(editing(), { type: 'tool', tool: 'line' }, ...drag([0.3, 0.1], [0.3, 0.9], mirrored));
    expect(state.rules.lines[0]).toMatchObject({ from: [0.3, 0.1], to: [0.3, 0.9] });
    // Drawn with the screen coordinates as they are: the same stroke lands at x = 0.7 on the picture.
    const screenLeft: ScreenPoint = [800 * 0.3, 60];
    const screenLeftLow: ScreenPoint = [800 * 0.3, 540];
    const raw = run(
      editing(),
      { type: 'tool', tool: 'line' },
      { type: 'down', at: screenLeft, view: mirrored },
      { type: 'up', at: screenLeftLow, view: mirrored },
    );
    expect(raw.rules.lines[0]!.from[0]).toBeCloseTo(0.7, 6);
  });

  it('names lines line-1, line-2, … skipping names taken', () => {
    const rules: CameraRules = { lines: [{ name: 'line-1', from: [0, 0], to: [1, 1] }], zones: [] };
    expect(nextName(rules, 'line')).toBe('line-2');
    expect(nextName(rules, 'zone')).toBe('zone-1');
  });
});

describe('drawing a zone', () => {
  it('by tapping its corners and the first one again', () => {
    const corners: NormalisedPoint[] = [
      [0.1, 0.1],
      [0.4, 0.1],
      [0.4, 0.4],
      [0.1, 0.4],
    ];
    let state = run(editing(), { type: 'tool', tool: 'zone' }, ...corners.flatMap((corner) => tap(corner)));
    expect(state.sketch).toMatchObject({ kind: 'zone', points: corners });
    // A double tap on the last corner adds nothing.
    state = run(state, ...tap([0.1, 0.4]));
    expect(state.sketch).toMatchObject({ kind: 'zone', points: corners });
    state = run(state, ...tap([0.101, 0.101]));
    expect(state.rules.zones).toEqual([{ name: 'zone-1', polygon: corners }]);
    expect(state.selected).toEqual({ kind: 'zone', index: 0 });
  });

  it('with Finish zone once it has three corners, and refuses one whose edges cross', () => {
    const three = run(editing(), { type: 'tool', tool: 'zone' }, ...tap([0.1, 0.1]), ...tap([0.5, 0.1]), { type: 'finish-zone' });
    expect(three.rules.zones).toEqual([]);
    const closed = run(three, ...tap([0.3, 0.5]), { type: 'finish-zone' });
    expect(closed.rules.zones).toHaveLength(1);
    const bowtie = run(
      editing(),
      { type: 'tool', tool: 'zone' },
      ...tap([0.1, 0.1]),
      ...tap([0.5, 0.5]),
      ...tap([0.5, 0.1]),
      ...tap([0.1, 0.5]),
      { type: 'finish-zone' },
    );
    expect(bowtie.rules.zones).toEqual([]);
    expect(bowtie.problem).toMatch(/must not cross/);
    expect(run(bowtie, { type: 'cancel' }).sketch).toBeUndefined();
  });
});

describe('selecting, moving and deleting', () => {
  const rules: CameraRules = { lines: [{ name: 'door', from: [0.5, 0.1], to: [0.5, 0.9] }], zones: [] };

  it('drags a point, or the whole rule, and a tap selects without moving', () => {
    const moved = run(editing(rules), ...drag([0.5, 0.9], [0.7, 0.8]));
    expect(moved.rules.lines[0]).toMatchObject({ from: [0.5, 0.1], to: [0.7, 0.8] });
    const whole = run(editing(rules), ...drag([0.5, 0.5], [0.6, 0.5]));
    expect(whole.rules.lines[0]!.from[0]).toBeCloseTo(0.6, 6);
    expect(whole.rules.lines[0]!.to[0]).toBeCloseTo(0.6, 6);
    const tapped = run(editing(rules), ...tap([0.5, 0.5]));
    expect(tapped.selected).toEqual({ kind: 'line', index: 0 });
    expect(isDirty(tapped)).toBe(false);
    expect(run(tapped, ...tap([0.9, 0.5])).selected).toBeUndefined();
  });

  it('Escape puts a dragged rule back', () => {
    const state = run(
      editing(rules),
      { type: 'down', at: at([0.5, 0.9]), view },
      { type: 'move', at: at([0.8, 0.8]), view },
      { type: 'cancel' },
    );
    expect(state.rules).toEqual(rules);
    expect(state.drag).toBeUndefined();
  });

  it('renames, filters labels and deletes the selected rule', () => {
    let state = run(editing(rules), ...tap([0.5, 0.5]), { type: 'rename', name: 'front door' }, { type: 'labels', labels: ['person'] });
    expect(state.rules.lines[0]).toMatchObject({ name: 'front door', labels: ['person'] });
    state = run(state, { type: 'labels', labels: undefined });
    expect(state.rules.lines[0]).not.toHaveProperty('labels');
    state = run(state, { type: 'delete' });
    expect(state.rules.lines).toEqual([]);
    expect(state.selected).toBeUndefined();
  });

  it('reads a labels filter as typed', () => {
    expect(parseLabels('person, car ,, person')).toEqual(['person', 'car']);
    expect(parseLabels('  ')).toBeUndefined();
  });

  it('ignores the pointer while not editing', () => {
    const state = run(initialEditor(rules), ...drag([0.5, 0.9], [0.7, 0.8]));
    expect(state.rules).toEqual(rules);
  });
});

describe('the gateway’s rules', () => {
  const theirs: CameraRules = { lines: [{ name: 'gate', from: [0.1, 0.5], to: [0.9, 0.5] }], zones: [] };

  it('replace a draft without changes, and are the base a draft is compared with', () => {
    const state = run(editing(), { type: 'server', rules: theirs });
    expect(state.rules).toEqual(theirs);
    expect(isDirty(state)).toBe(false);
  });

  it('leave a draft with changes as it is, and say they changed meanwhile; Revert takes them', () => {
    const mine = run(editing(), { type: 'tool', tool: 'line' }, ...drag([0.5, 0.1], [0.5, 0.9]));
    const state = run(mine, { type: 'server', rules: theirs });
    expect(state.rules).toEqual(mine.rules);
    expect(state.stale).toBe(true);
    const reverted = run(state, { type: 'revert' });
    expect(reverted.rules).toEqual(theirs);
    expect(reverted.stale).toBe(false);
  });

  it('equal to the draft (the answer to its save, keys in any order) make it clean', () => {
    const mine = run(editing(), { type: 'tool', tool: 'line' }, ...drag([0.5, 0.1], [0.5, 0.9]));
    const stored = { camera: 'c', updatedAt: 5, zones: [], lines: [{ to: [0.5, 0.9], from: [0.5, 0.1], name: 'line-1' }] } as CameraRules;
    expect(sameRules(mine.rules, stored)).toBe(true);
    const state = run(mine, { type: 'server', rules: stored });
    expect(isDirty(state)).toBe(false);
    expect(state.stale).toBe(false);
  });

  it('Done drops what was not saved', () => {
    const mine = run(editing(theirs), { type: 'delete' }, ...tap([0.5, 0.5]), { type: 'delete' });
    expect(mine.rules.lines).toEqual([]);
    const closed = run(mine, { type: 'close' });
    expect(closed.editing).toBe(false);
    expect(closed.rules).toEqual(theirs);
  });
});
