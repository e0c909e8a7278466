/**
 * The rules editor's controls, under the picture while editing: the tool (select, line, zone), Finish zone,
 * Delete, the selected rule's name and labels filter, Save (PUT, the gateway's refusal shown with the field it
 * names), Revert and Done. Every control is a visible button of at least 36 px (no hover-only control), so the
 * editor works with a finger on a phone.
 */
import { useState, type Dispatch } from 'react';
import type { LineRule, ZoneRule } from '@sightline/shared/events';
import { SegmentedChoice } from '../components/SegmentedChoice.tsx';
import { parseLabels, type EditorAction, type EditorState, type Tool } from './rules-editor.ts';
import { ruleAt } from './rule-geometry.ts';
import { useScene, type SaveStatus, type SceneStore } from './scene-store.ts';

interface Props {
  store: SceneStore;
}

const TOOLS: readonly Tool[] = ['select', 'line', 'zone'];
const TOOL_LABELS: Record<Tool, string> = { select: 'Select', line: 'Line', zone: 'Zone' };
const TOOL_HINTS: Record<Tool, string> = {
  select: 'Drag a point to move it, a line or zone to move it whole; tap one to name it.',
  line: 'Drag across the picture from one end to the other (or tap both ends). The arrow points to the “in” side.',
  zone: 'Tap the corners, then the first corner again (or Finish zone) to close it.',
};

const TOOL_CHOICES = { options: TOOLS, labels: TOOL_LABELS, hints: TOOL_HINTS };

function hintOf(editor: EditorState): string {
  const { sketch, tool } = editor;
  if (sketch?.kind === 'line' && !sketch.pressed) return 'Now tap (or drag to) the line’s other end. Escape drops it.';
  if (sketch?.kind === 'zone')
    return sketch.points.length >= 3
      ? `${sketch.points.length} corners: tap the first corner or Finish zone to close it.`
      : `${sketch.points.length} of at least 3 corners.`;
  return TOOL_HINTS[tool];
}

/** Shown while editing only. */
export function RulesToolbar({ store }: Props) {
  const { camera, editor, dirty, saveStatus } = useScene(store);
  const { dispatch, save: onSave } = store;
  if (!editor.editing) return null;
  const rule = editor.selected && ruleAt(editor.rules, editor.selected);
  const zoneSketch = editor.sketch?.kind === 'zone' ? editor.sketch : undefined;
  const saving = saveStatus.state === 'saving';
  return (
    <section className="rules-toolbar" data-testid="rules-toolbar" aria-label={`Rules of camera ${camera}`}>
      <div className="rules-toolbar__row">
        <SegmentedChoice name="rules-tool" {...TOOL_CHOICES} value={editor.tool} onChange={(tool) => dispatch({ type: 'tool', tool })} />
        {zoneSketch && (
          <button
            type="button"
            className="button"
            data-testid="rules-finish-zone"
            disabled={zoneSketch.points.length < 3}
            onClick={() => dispatch({ type: 'finish-zone' })}
          >
            Finish zone
          </button>
        )}
        <button type="button" className="button" data-testid="rules-delete" disabled={!rule} onClick={() => dispatch({ type: 'delete' })}>
          Delete
        </button>
        <span className="rules-toolbar__spacer" />
        <button type="button" className="button button--primary" data-testid="rules-save" disabled={!dirty || saving} onClick={onSave}>
          {saving ? 'Saving…' : 'Save'}
        </button>
        <button
          type="button"
          className="button"
          data-testid="rules-revert"
          disabled={!dirty || saving}
          onClick={() => dispatch({ type: 'revert' })}
        >
          Revert
        </button>
        <button type="button" className="button button--ghost" data-testid="rules-done" onClick={() => dispatch({ type: 'close' })}>
          {dirty ? 'Close, drop changes' : 'Done'}
        </button>
      </div>
      {rule && <RuleFields key={`${editor.selected!.kind}-${editor.selected!.index}`} rule={rule} dispatch={dispatch} />}
      <p className="rules-toolbar__hint" data-testid="rules-hint">
        {hintOf(editor)}
      </p>
      {editor.problem && (
        <p className="rules-toolbar__problem" role="alert">
          {editor.problem}
        </p>
      )}
      {editor.stale && (
        <p className="rules-toolbar__problem" data-testid="rules-stale" role="status">
          Another dashboard saved this camera’s rules meanwhile: Save puts yours in their place, Revert takes theirs.
        </p>
      )}
      <SaveLine status={saveStatus} dirty={dirty} />
    </section>
  );
}

function SaveLine({ status, dirty }: { status: SaveStatus; dirty: boolean }) {
  if (status.state === 'failed')
    return (
      <p className="rules-toolbar__error" data-testid="rules-error" data-field={status.field ?? ''} role="alert">
        Not saved: {status.message}
      </p>
    );
  return (
    <p className="rules-toolbar__status" data-testid="rules-status" data-state={dirty ? 'unsaved' : status.state}>
      {dirty ? 'Unsaved changes.' : status.state === 'saved' ? 'Saved: every dashboard of this camera shows them.' : ''}
    </p>
  );
}

/** The selected rule's name and labels filter; the labels are kept as typed and read on every change. */
function RuleFields({ rule, dispatch }: { rule: LineRule | ZoneRule; dispatch: Dispatch<EditorAction> }) {
  const [labels, setLabels] = useState(() => (rule.labels ?? []).join(', '));
  const kind = 'polygon' in rule ? 'Zone' : 'Line';
  return (
    <div className="rules-toolbar__fields">
      <label className="rules-toolbar__field">
        <span>{kind} name</span>
        <input
          className="input"
          data-testid="rule-name-input"
          value={rule.name}
          maxLength={64}
          onChange={(event) => dispatch({ type: 'rename', name: event.target.value })}
        />
      </label>
      <label className="rules-toolbar__field">
        <span>Labels (empty: every label)</span>
        <input
          className="input"
          data-testid="rule-labels-input"
          value={labels}
          placeholder="person, car"
          onChange={(event) => {
            setLabels(event.target.value);
            dispatch({ type: 'labels', labels: parseLabels(event.target.value) });
          }}
        />
      </label>
    </div>
  );
}
