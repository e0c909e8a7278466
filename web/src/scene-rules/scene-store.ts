/**
 * One camera's rules on the dashboard, outside React: its live feed (event-feed.ts: rules, counts, events), the
 * editor's draft (rules-editor.ts) following the gateway's rules, and Save (checked here first with the gateway's
 * own schema, so most mistakes are named before anything is sent; the gateway's refusal otherwise, with the field
 * it names). Components read it with `useScene` (useSyncExternalStore), each on its own: a pointer move while
 * drawing, or an event arriving, renders the rules layer, the toolbar and the events panel, never the whole page.
 */
import { useEffect, useMemo, useSyncExternalStore } from 'react';
import { parseCameraRules, RulesError, type CameraRules, type CameraRulesResponse } from '@sightline/shared/events';
import { Signal } from '../events/signal.ts';
import { EventFeed, type EventFeedOptions, type FeedState } from './event-feed.ts';
import { saveRules as putRules, RulesApiError } from './rules-api.ts';
import { editorReducer, initialEditor, isDirty, rulesOnly, type EditorAction, type EditorState } from './rules-editor.ts';
import type { RuleRef } from './rule-geometry.ts';

/** What Save last did: under way, refused (with the field named), or done. */
export type SaveStatus =
  { state: 'idle' } | { state: 'saving' } | { state: 'saved'; at: number } | { state: 'failed'; message: string; field?: string };

export interface SceneSnapshot {
  camera: string;
  feed: FeedState;
  editor: EditorState;
  dirty: boolean;
  saveStatus: SaveStatus;
}

export interface SceneStoreOptions {
  camera: string;
  feed?: Omit<EventFeedOptions, 'camera'>;
  saveRules?: (camera: string, rules: CameraRules) => Promise<CameraRulesResponse>;
  now?: () => number;
}

/** `lines[2].name` -> the third line. */
export function refOfField(field: string | undefined): RuleRef | undefined {
  const match = field ? /^(lines|zones)\[(\d+)\]/.exec(field) : null;
  return match ? { kind: match[1] === 'lines' ? 'line' : 'zone', index: Number(match[2]) } : undefined;
}

export class SceneStore {
  readonly camera: string;
  private readonly feed: EventFeed;
  private readonly changed = new Signal<void>();
  private readonly options: SceneStoreOptions;
  private editor: EditorState = initialEditor();
  private saveStatus: SaveStatus = { state: 'idle' };
  private snapshot: SceneSnapshot;
  private unsubscribeFeed: (() => void) | undefined;
  /** The feed's rules last handed to the editor. */
  private rulesSeen: CameraRulesResponse | undefined;

  constructor(options: SceneStoreOptions) {
    this.options = options;
    this.camera = options.camera;
    this.feed = new EventFeed({ camera: options.camera, ...options.feed });
    this.snapshot = this.build();
  }

  start(): void {
    this.unsubscribeFeed ??= this.feed.subscribe(() => this.feedChanged());
    this.feed.start();
  }

  stop(): void {
    this.feed.stop();
    this.unsubscribeFeed?.();
    this.unsubscribeFeed = undefined;
  }

  readonly subscribe = (listener: () => void): (() => void) => this.changed.subscribe(listener);

  readonly getSnapshot = (): SceneSnapshot => this.snapshot;

  readonly dispatch = (action: EditorAction): void => {
    const next = editorReducer(this.editor, action);
    if (next === this.editor) return;
    this.editor = next;
    this.publish();
  };

  /** Checks the draft and PUTs it; the answer (what the gateway stored) becomes the rules shown. */
  readonly save = (): void => {
    let rules: CameraRules;
    try {
      rules = parseCameraRules(rulesOnly(this.editor.rules));
    } catch (error) {
      if (!(error instanceof RulesError)) throw error;
      this.refused(error.message, error.field);
      return;
    }
    this.saveStatus = { state: 'saving' };
    this.publish();
    const save = this.options.saveRules ?? putRules;
    save(this.camera, rules).then(
      (stored) => {
        this.saveStatus = { state: 'saved', at: (this.options.now ?? Date.now)() };
        // Shown at once (the SSE `rules` event of this save follows, the same).
        this.feed.rulesSaved(stored);
        this.publish();
      },
      (error: unknown) =>
        this.refused(error instanceof Error ? error.message : String(error), error instanceof RulesApiError ? error.field : undefined),
    );
  };

  private refused(message: string, field: string | undefined): void {
    this.saveStatus = { state: 'failed', message, ...(field ? { field } : {}) };
    const ref = refOfField(field);
    if (ref) this.editor = editorReducer(this.editor, { type: 'select', ref });
    this.publish();
  }

  private feedChanged(): void {
    const { rules } = this.feed.getState();
    // The gateway's rules (GET, any dashboard's save over SSE): the draft follows while it has no changes of its own.
    if (rules && rules !== this.rulesSeen) {
      this.rulesSeen = rules;
      this.editor = editorReducer(this.editor, { type: 'server', rules });
    }
    this.publish();
  }

  private build(): SceneSnapshot {
    return {
      camera: this.camera,
      feed: this.feed.getState(),
      editor: this.editor,
      dirty: isDirty(this.editor),
      saveStatus: this.saveStatus,
    };
  }

  private publish(): void {
    this.snapshot = this.build();
    this.changed.emit();
  }
}

/** The store of the camera chosen, live while the component is mounted; another camera is another store. */
export function useSceneStore(camera: string): SceneStore {
  const store = useMemo(() => new SceneStore({ camera }), [camera]);
  useEffect(() => {
    store.start();
    return () => store.stop();
  }, [store]);
  return store;
}

export function useScene(store: SceneStore): SceneSnapshot {
  return useSyncExternalStore(store.subscribe, store.getSnapshot);
}
