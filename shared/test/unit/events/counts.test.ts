import { describe, expect, it } from 'vitest';
import { CountTable, countKindOf } from '../../../src/events/counts.ts';
import type { RuleEvent } from '../../../src/events/types.ts';

const event = (rule: string, type: RuleEvent['type'], label = 'person', direction?: RuleEvent['direction']) => ({
  rule,
  type,
  label,
  ...(direction ? { direction } : {}),
});

describe('countKindOf', () => {
  it('a crossing counts as its direction, a zone event as enter or leave', () => {
    expect(countKindOf(event('l', 'line_cross', 'person', 'in'))).toBe('in');
    expect(countKindOf(event('l', 'line_cross', 'person', 'out'))).toBe('out');
    expect(countKindOf(event('z', 'zone_enter'))).toBe('enter');
    expect(countKindOf(event('z', 'zone_leave'))).toBe('leave');
  });
});

describe('CountTable', () => {
  it('counts per rule, kind and label, listed sorted by rule, kind (in, out, enter, leave), label', () => {
    const table = new CountTable();
    table.addAll([
      event('zone', 'zone_leave'),
      event('door', 'line_cross', 'person', 'out'),
      event('door', 'line_cross', 'person', 'in'),
      event('door', 'line_cross', 'dog', 'in'),
      event('door', 'line_cross', 'person', 'in'),
      event('zone', 'zone_enter'),
      event('zone', 'zone_enter', 'car'),
    ]);
    expect(table.list()).toEqual([
      { rule: 'door', kind: 'in', label: 'dog', count: 1 },
      { rule: 'door', kind: 'in', label: 'person', count: 2 },
      { rule: 'door', kind: 'out', label: 'person', count: 1 },
      { rule: 'zone', kind: 'enter', label: 'car', count: 1 },
      { rule: 'zone', kind: 'enter', label: 'person', count: 1 },
      { rule: 'zone', kind: 'leave', label: 'person', count: 1 },
    ]);
    expect(table.get('door', 'in')).toBe(3);
    expect(table.get('door', 'in', 'person')).toBe(2);
    expect(table.get('door', 'leave')).toBe(0);
    expect(table.size).toBe(6);
  });

  it('starts from served counts, lists copies, forgets replaced rules', () => {
    const table = CountTable.from([
      { rule: 'a', kind: 'in', label: 'person', count: 4 },
      { rule: 'b', kind: 'out', label: 'person', count: 1 },
    ]);
    table.add(event('a', 'line_cross', 'person', 'in'));
    const listed = table.list();
    listed[0]!.count = 100;
    expect(table.get('a', 'in', 'person')).toBe(5);
    table.clear(['b']);
    expect(table.list()).toEqual([{ rule: 'b', kind: 'out', label: 'person', count: 1 }]);
    table.clear();
    expect(table.list()).toEqual([]);
  });
});
