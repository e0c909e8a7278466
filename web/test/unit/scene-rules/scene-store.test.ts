import { describe, expect, it } from 'vitest';
import type { CameraRules, CameraRulesResponse } from '@sightline/shared/events';
import type { EventSourceLike } from '../../../src/scene-rules/event-feed.ts';
import { RulesApiError } from '../../../src/scene-rules/rules-api.ts';
import { pictureView, toScreen } from '../../../src/scene-rules/rule-geometry.ts';
import { refOfField, SceneStore } from '../../../src/scene-rules/scene-store.ts';
import { FakeClock } from '../../support/fake-clock.ts';

const camera = 'door';
const view = pictureView(800, 600, { width: 640, height: 480 }, false);

class QuietSource implements EventSourceLike {
  readyState = 0;
  readonly listeners = new Map<string, (event: MessageEvent) => void>();
  addEventListener(type: string, listener: (event: MessageEvent) => void): void {
    this.listeners.set(type, listener);
  }
  close(): void {}
  rules(rules: CameraRulesResponse): void {
    this.listeners.get('rules')?.({ data: JSON.stringify(rules) } as MessageEvent);
  }
}

const settle = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

function setup(save: (rules: CameraRules) => Promise<CameraRulesResponse>) {
  let source: QuietSource | undefined;
  const puts: CameraRules[] = [];
  const store = new SceneStore({
    camera,
    feed: {
      clock: new FakeClock(),
      createSource: () => (source = new QuietSource()),
      fetchRules: async () => ({ camera, lines: [], zones: [] }),
      fetchCounts: async () => ({ camera, counts: [] }),
      fetchEvents: async () => ({ events: [] }),
    },
    saveRules: async (_camera, rules) => {
      puts.push(rules);
      return save(rules);
    },
    now: () => 42,
  });
  store.start();
  return { store, puts, source: () => source! };
}

/** Opens the editor and draws a line down the middle. */
function drawLine(store: SceneStore): void {
  store.dispatch({ type: 'open' });
  store.dispatch({ type: 'tool', tool: 'line' });
  store.dispatch({ type: 'down', at: toScreen([0.5, 0.1], view), view });
  store.dispatch({ type: 'move', at: toScreen([0.5, 0.9], view), view });
  store.dispatch({ type: 'up', at: toScreen([0.5, 0.9], view), view });
}

describe('SceneStore', () => {
  it('saves the draft, and what the gateway stored is the rules shown, the draft clean', async () => {
    const h = setup(async (rules) => ({ camera, updatedAt: 7, ...rules }));
    await settle();
    drawLine(h.store);
    expect(h.store.getSnapshot().dirty).toBe(true);
    h.store.save();
    expect(h.store.getSnapshot().saveStatus).toEqual({ state: 'saving' });
    await settle();
    expect(h.puts).toEqual([{ lines: [{ name: 'line-1', from: [0.5, 0.1], to: [0.5, 0.9] }], zones: [] }]);
    const snapshot = h.store.getSnapshot();
    expect(snapshot.saveStatus).toEqual({ state: 'saved', at: 42 });
    expect(snapshot.dirty).toBe(false);
    expect(snapshot.feed.rules).toMatchObject({ updatedAt: 7, lines: [{ name: 'line-1' }] });
    h.store.stop();
  });

  it('names the field of a mistake before sending anything, and selects the rule it is in', async () => {
    const h = setup(async (rules) => ({ camera, ...rules }));
    await settle();
    drawLine(h.store);
    h.store.dispatch({ type: 'select', ref: undefined });
    h.store.dispatch({ type: 'select', ref: { kind: 'line', index: 0 } });
    h.store.dispatch({ type: 'rename', name: '' });
    h.store.dispatch({ type: 'select', ref: undefined });
    h.store.save();
    expect(h.puts).toEqual([]);
    expect(h.store.getSnapshot().saveStatus).toEqual({
      state: 'failed',
      message: 'lines[0].name: must not be empty',
      field: 'lines[0].name',
    });
    expect(h.store.getSnapshot().editor.selected).toEqual({ kind: 'line', index: 0 });
  });

  it('shows the gateway’s refusal with the field it names', async () => {
    const h = setup(async () => {
      throw new RulesApiError(400, 'lines[0].from: is reserved', 'bad_message', 'lines[0].from');
    });
    await settle();
    drawLine(h.store);
    h.store.save();
    await settle();
    expect(h.store.getSnapshot().saveStatus).toMatchObject({ state: 'failed', field: 'lines[0].from' });
    expect(h.store.getSnapshot().dirty).toBe(true);
  });

  it('follows another dashboard’s save while the draft is clean', async () => {
    const h = setup(async (rules) => ({ camera, ...rules }));
    await settle();
    h.source().rules({ camera, updatedAt: 3, lines: [{ name: 'gate', from: [0, 0.5], to: [1, 0.5] }], zones: [] });
    expect(h.store.getSnapshot().editor.rules.lines.map((line) => line.name)).toEqual(['gate']);
  });

  it('reads the rule a field names', () => {
    expect(refOfField('zones[3].polygon[1]')).toEqual({ kind: 'zone', index: 3 });
    expect(refOfField('lines')).toBeUndefined();
    expect(refOfField(undefined)).toBeUndefined();
  });
});
