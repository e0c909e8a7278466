/**
 * Counts per rule, kind (a line's `in` / `out`, a zone's `enter` / `leave`) and label: what the gateway serves and
 * publishes, and what the dashboard draws on the picture. Both add the same events to a CountTable.
 */
import type { CountKind, RuleCount, RuleEvent } from './types.ts';

/** What an event counts as: a crossing's direction, a zone's `enter` or `leave`. */
export function countKindOf(event: Pick<RuleEvent, 'type' | 'direction'>): CountKind {
  switch (event.type) {
    case 'line_cross':
      return event.direction ?? 'in';
    case 'zone_enter':
      return 'enter';
    case 'zone_leave':
      return 'leave';
  }
}

const KIND_ORDER: Record<CountKind, number> = { in: 0, out: 1, enter: 2, leave: 3 };

/** Orders counts by rule, then kind (in, out, enter, leave), then label. */
export function compareCounts(a: RuleCount, b: RuleCount): number {
  return cmp(a.rule, b.rule) || KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || cmp(a.label, b.label);
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const keyOf = (rule: string, kind: CountKind, label: string) => JSON.stringify([rule, kind, label]);

export class CountTable {
  private readonly counts = new Map<string, RuleCount>();

  /** A table holding `counts` (e.g. as the gateway served them), added up where they repeat. */
  static from(counts: Iterable<RuleCount>): CountTable {
    const table = new CountTable();
    for (const c of counts) table.increment(c.rule, c.kind, c.label, c.count);
    return table;
  }

  /** Counts one event. */
  add(event: Pick<RuleEvent, 'rule' | 'type' | 'direction' | 'label'>): void {
    this.increment(event.rule, countKindOf(event), event.label);
  }

  addAll(events: Iterable<Pick<RuleEvent, 'rule' | 'type' | 'direction' | 'label'>>): void {
    for (const e of events) this.add(e);
  }

  increment(rule: string, kind: CountKind, label: string, by = 1): void {
    const key = keyOf(rule, kind, label);
    const entry = this.counts.get(key);
    if (entry) entry.count += by;
    else this.counts.set(key, { rule, kind, label, count: by });
  }

  /** One count; with no label, the sum over labels. */
  get(rule: string, kind: CountKind, label?: string): number {
    if (label !== undefined) return this.counts.get(keyOf(rule, kind, label))?.count ?? 0;
    let sum = 0;
    for (const c of this.counts.values()) if (c.rule === rule && c.kind === kind) sum += c.count;
    return sum;
  }

  /** Every count, sorted by rule, kind, label (copies). */
  list(): RuleCount[] {
    return [...this.counts.values()].map((c) => ({ ...c })).sort(compareCounts);
  }

  /** Forgets the counts of rules not in `keep` (rules replaced), or of every rule. */
  clear(keep?: Iterable<string>): void {
    if (!keep) return this.counts.clear();
    const names = new Set(keep);
    for (const [key, c] of this.counts) if (!names.has(c.rule)) this.counts.delete(key);
  }

  get size(): number {
    return this.counts.size;
  }
}
