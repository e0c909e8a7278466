/**
 * The events database: an event and its count written together, read back in seq order (per camera too), rules
 * and cursors that outlive a reopening, the counts of a removed rule gone with it, and retention by rows (on
 * insert) and by age (oldest first, in chunks), told to the metric.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countKindOf, type DetectionEvent } from '@sightline/shared/events';
import { EventStore, type RemovalReason } from '../../../src/events/event-store.ts';
import { DOOR } from './crossings.ts';
import { detectionEvent } from './sample-event.ts';

const append = (store: EventStore, e: DetectionEvent, at = 1_000) => store.append(e, countKindOf(e), at);

describe('EventStore', () => {
  let dir: string;
  let path: string;
  let removed: Array<[RemovalReason, number]>;
  const open = (maxRows = 1000) => new EventStore(path, { maxRows, onRemoved: (reason, count) => removed.push([reason, count]) });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sightline-events-'));
    path = join(dir, 'events.sqlite');
    removed = [];
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('stores events with increasing seqs and counts them in the same write', () => {
    const store = open();
    const a = append(store, detectionEvent({ direction: 'in' }));
    const b = append(store, detectionEvent({ direction: 'out', label: 'car' }));
    const c = append(store, detectionEvent({ direction: 'in' }));
    expect([a.seq, b.seq, c.seq]).toEqual([1, 2, 3]);
    expect(store.lastSeq).toBe(3);
    expect(store.after(0, 10).map((e) => e.id)).toEqual([a.id, b.id, c.id]);
    expect(store.after(1, 1)).toEqual([b]);
    expect(store.counts('gate')).toEqual([
      { rule: 'door', kind: 'in', label: 'person', count: 2 },
      { rule: 'door', kind: 'out', label: 'car', count: 1 },
    ]);
    store.close();
  });

  it('refuses a second event with the same id, and counts nothing for it', () => {
    const store = open();
    const a = detectionEvent();
    append(store, a);
    expect(() => append(store, { ...a })).toThrow();
    expect(store.counts('gate')[0]!.count).toBe(1);
    expect(store.size).toBe(1);
    store.close();
  });

  it('reads one camera after a seq, oldest first', () => {
    const store = open();
    for (let i = 0; i < 6; i += 1) append(store, detectionEvent({ camera: i % 2 === 0 ? 'gate' : 'yard' }));
    expect(store.after(0, 10, 'yard').map((e) => e.seq)).toEqual([2, 4, 6]);
    expect(store.after(2, 1, 'yard').map((e) => e.seq)).toEqual([4]);
    expect(store.cameras().map((c) => c.name)).toEqual(['gate', 'yard']);
    store.close();
  });

  it('keeps rules, events, counts and cursors across a reopening', () => {
    let store = open();
    store.putRules('gate', DOOR, 123);
    append(store, detectionEvent());
    store.setCursor('mqtt', 1);
    store.close();
    store = open();
    expect(store.allRules().get('gate')).toEqual({ rules: DOOR, updatedAt: 123 });
    expect(store.lastSeq).toBe(1);
    expect(store.cursor('mqtt')).toBe(1);
    expect(store.cursor('webhook')).toBeUndefined();
    expect(store.counts('gate')).toHaveLength(1);
    expect(store.cameras()).toEqual([{ name: 'gate', lines: 1, zones: 0 }]);
    store.close();
  });

  it('drops the counts of a rule removed, keeps those of a rule kept (by name, a line moved included)', () => {
    const store = open();
    const rules = {
      lines: [
        { name: 'door', from: [0.5, 0], to: [0.5, 1] },
        { name: 'gate', from: [0, 0.5], to: [1, 0.5] },
      ],
      zones: [
        {
          name: 'door',
          polygon: [
            [0, 0],
            [1, 0],
            [1, 1],
          ],
        },
      ],
    } as const;
    store.putRules('cam', structuredClone(rules) as never, 1);
    append(store, detectionEvent({ camera: 'cam', rule: 'door', direction: 'in' }));
    append(store, detectionEvent({ camera: 'cam', rule: 'gate', direction: 'out' }));
    append(store, detectionEvent({ camera: 'cam', rule: 'door', type: 'zone_enter', direction: undefined }));
    // The line `door` moves, the line `gate` goes, the zone `door` goes (a line of that name stays).
    store.putRules('cam', { lines: [{ name: 'door', from: [0.4, 0], to: [0.4, 1] }], zones: [] }, 2);
    expect(store.counts('cam')).toEqual([{ rule: 'door', kind: 'in', label: 'person', count: 1 }]);
    store.close();
  });

  it('removes the oldest events past the row limit as new ones come, and says so', () => {
    const store = open(100);
    for (let i = 0; i < 150; i += 1) append(store, detectionEvent());
    expect(store.size).toBe(100);
    expect(store.firstSeq).toBe(51);
    expect(store.after(0, 1)[0]!.seq).toBe(51);
    expect(removed.reduce((sum, [reason, count]) => (reason === 'rows' ? sum + count : sum), 0)).toBe(50);
    // Counts are not history: retention leaves them.
    expect(store.counts('gate')[0]!.count).toBe(150);
    store.close();
  });

  it('removes events older than the cutoff, oldest first and at most a chunk at a time', () => {
    const store = open();
    for (let i = 0; i < 10; i += 1) append(store, detectionEvent(), 1_000 + i);
    expect(store.removeOlderThan(1_005, 3)).toBe(3);
    expect(store.firstSeq).toBe(4);
    expect(store.removeOlderThan(1_005, 100)).toBe(2);
    expect(store.firstSeq).toBe(6);
    expect(store.removeOlderThan(1_005, 100)).toBe(0);
    expect(removed).toEqual([
      ['age', 3],
      ['age', 2],
    ]);
    store.close();
  });

  it("is one process's: a second opening of the same file is refused while the first holds it", () => {
    const store = open();
    append(store, detectionEvent());
    expect(() => open()).toThrow(/locked|busy/i);
    store.close();
    const again = open();
    expect(again.lastSeq).toBe(1);
    again.close();
  });

  it('never hands out a seq again, even once retention emptied the table and the file was reopened', () => {
    let store = open();
    for (let i = 0; i < 5; i += 1) append(store, detectionEvent(), 1);
    expect(store.removeOlderThan(2, 100)).toBe(5);
    expect(store.size).toBe(0);
    expect(store.firstSeq).toBe(6);
    store.close();
    store = open();
    expect(store.lastSeq).toBe(5);
    expect(store.firstSeq).toBe(6);
    expect(append(store, detectionEvent()).seq).toBe(6);
    store.close();
  });
});
