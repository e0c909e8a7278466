/**
 * The events database (SQLite through `node:sqlite`, one file under the data directory): each camera's rules, every
 * event (the history, and the outbox the sinks deliver from), the counts, and how far each sink has delivered.
 *
 * An event is written, with its count, in one transaction before anyone hears of it: what a sink or an SSE client
 * is sent is always in the file, so a gateway restarted, a broker down or a webhook failing loses nothing. `seq`
 * orders every event of this gateway (AUTOINCREMENT: never reused, even when retention empties the table), so
 * "everything after seq N" is one range scan on the primary key. Retention removes the oldest events only: the
 * rows left are one contiguous range of seq.
 *
 * WAL with synchronous=NORMAL: a commit is a write to the log without an fsync (about 20 µs), and the file stays
 * consistent after a crash; a power loss may cost the last commits, never the file. The file is locked for
 * this process (locking_mode EXCLUSIVE) as long as it is open.
 */
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type { CameraRules, CountKind, DetectionEvent, RuleCount, StoredEvent } from '@sightline/shared/events';

export interface StoredRules {
  rules: CameraRules;
  /** When they were last replaced (ms since the epoch). */
  updatedAt: number;
}

/** Why retention removed events: too old, or more than the rows allowed. */
export type RemovalReason = 'age' | 'rows';

export interface EventStoreOptions {
  /** Rows kept at most: an insert past it removes the oldest. */
  maxRows: number;
  /** Told what retention removed (a metric). */
  onRemoved?: (reason: RemovalReason, count: number) => void;
}

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS rules (
    camera TEXT PRIMARY KEY,
    json TEXT NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE TABLE IF NOT EXISTS cameras (
    name TEXT PRIMARY KEY
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    camera TEXT NOT NULL,
    rule TEXT NOT NULL,
    type TEXT NOT NULL,
    stored_at INTEGER NOT NULL,
    json TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS events_by_camera ON events (camera, seq);
  CREATE TABLE IF NOT EXISTS counts (
    camera TEXT NOT NULL,
    rule TEXT NOT NULL,
    kind TEXT NOT NULL,
    label TEXT NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (camera, rule, kind, label)
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS cursors (
    sink TEXT PRIMARY KEY,
    seq INTEGER NOT NULL
  ) WITHOUT ROWID;
`;

interface EventRow {
  seq: number;
  json: string;
}

export class EventStore {
  private readonly db: DatabaseSync;
  private readonly statements: ReturnType<typeof prepare>;
  private rows: number;
  private first: number;
  private last: number;
  private readonly options: EventStoreOptions;

  /** Opens (creating it if needed) the database at `path`; `:memory:` keeps it in memory. */
  constructor(path: string, options: EventStoreOptions) {
    this.options = options;
    // A busy database is waited for briefly: the file is this gateway's alone (below), so only another
    // gateway on the same data directory would hold it, and the frame path must not wait on that.
    this.db = new DatabaseSync(path, { timeout: 250 });
    try {
      // One gateway per file: seqs, cursors and live streams are one process's. A second gateway on the same
      // data directory fails to open it (SQLITE_BUSY) instead of delivering the first one's events twice.
      this.db.exec('PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
      this.db.exec(SCHEMA);
      this.statements = prepare(this.db);
      const range = this.db.prepare('SELECT COUNT(*) AS rows, MIN(seq) AS first, MAX(seq) AS last FROM events').get() as {
        rows: number;
        first: number | null;
        last: number | null;
      };
      const sequence = this.db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'events'").get() as { seq: number } | undefined;
      this.rows = range.rows;
      // The last seq ever handed out, even when retention removed that event since.
      this.last = Math.max(range.last ?? 0, sequence?.seq ?? 0);
      this.first = range.first ?? this.last + 1;
    } catch (error) {
      this.db.close();
      throw error;
    }
  }

  /** The seq of the newest event ever stored (0 before the first). */
  get lastSeq(): number {
    return this.last;
  }

  /** The seq of the oldest event still stored (lastSeq + 1 when there is none). */
  get firstSeq(): number {
    return this.first;
  }

  /** Events stored. */
  get size(): number {
    return this.rows;
  }

  get isOpen(): boolean {
    return this.db.isOpen;
  }

  // Rules.

  allRules(): Map<string, StoredRules> {
    const rows = this.statements.allRules.all() as Array<{ camera: string; json: string; updated_at: number }>;
    return new Map(rows.map((row) => [row.camera, { rules: JSON.parse(row.json) as CameraRules, updatedAt: row.updated_at }]));
  }

  /**
   * Replaces a camera's rules; the counts of rules no longer there go with them (a rule is its name: a line
   * moved keeps its counts). One transaction: a crash leaves the old rules or the new ones, with their counts.
   */
  putRules(camera: string, rules: CameraRules, updatedAt: number): void {
    this.transaction(() => {
      this.statements.putRules.run(camera, JSON.stringify(rules), updatedAt);
      this.statements.addCamera.run(camera);
      const kept = new Set([...rules.lines.map((line) => `line\0${line.name}`), ...rules.zones.map((zone) => `zone\0${zone.name}`)]);
      for (const count of this.counts(camera)) {
        const kind = count.kind === 'in' || count.kind === 'out' ? 'line' : 'zone';
        if (!kept.has(`${kind}\0${count.rule}`)) this.statements.deleteCount.run(camera, count.rule, count.kind, count.label);
      }
    });
  }

  /** Every camera with rules or events, and how many lines and zones it has. */
  cameras(): Array<{ name: string; lines: number; zones: number }> {
    const rules = this.allRules();
    const names = (this.statements.cameras.all() as Array<{ name: string }>).map((row) => row.name);
    return names.map((name) => {
      const own = rules.get(name)?.rules;
      return { name, lines: own?.lines.length ?? 0, zones: own?.zones.length ?? 0 };
    });
  }

  // Events.

  /**
   * Stores one event and counts it, in one transaction; returns it with its seq. Past `maxRows` the oldest
   * events are removed (usually one, as each new one comes in).
   */
  append(event: DetectionEvent, kind: CountKind, storedAt: number): StoredEvent {
    let seq = 0;
    this.transaction(() => {
      const result = this.statements.insertEvent.run(event.id, event.camera, event.rule, event.type, storedAt, JSON.stringify(event));
      seq = Number(result.lastInsertRowid);
      this.statements.addCount.run(event.camera, event.rule, kind, event.label);
      this.statements.addCamera.run(event.camera);
    });
    this.last = seq;
    if (this.rows === 0) this.first = seq;
    this.rows += 1;
    if (this.rows > this.options.maxRows) this.removeOldest(this.rows - this.options.maxRows, 'rows');
    return { ...event, seq };
  }

  /** Up to `limit` events after `since` (exclusive), oldest first; of one camera when it is named. */
  after(since: number, limit: number, camera?: string): StoredEvent[] {
    const rows = (camera === undefined
      ? this.statements.after.all(since, limit)
      : this.statements.afterOfCamera.all(camera, since, limit)) as unknown as EventRow[];
    return rows.map((row) => ({ ...(JSON.parse(row.json) as DetectionEvent), seq: row.seq }));
  }

  // Counts.

  counts(camera: string, rule?: string): RuleCount[] {
    const rows = (rule === undefined
      ? this.statements.counts.all(camera)
      : this.statements.countsOfRule.all(camera, rule)) as unknown as RuleCount[];
    return rows.map((row) => ({ rule: row.rule, kind: row.kind, label: row.label, count: row.count }));
  }

  // Delivery cursors.

  /** The seq up to which `sink` has delivered, or undefined for a sink never seen. */
  cursor(sink: string): number | undefined {
    return (this.statements.cursor.get(sink) as { seq: number } | undefined)?.seq;
  }

  setCursor(sink: string, seq: number): void {
    this.statements.setCursor.run(sink, seq);
  }

  // Retention.

  /**
   * Removes up to `limit` of the events stored before `cutoff` (ms since the epoch), oldest first; returns how
   * many. Events are stored in seq order with the gateway's clock, so the old ones are a prefix: the scan stops
   * at the first young one and costs what it removes.
   */
  removeOlderThan(cutoff: number, limit: number): number {
    if (this.rows === 0) return 0;
    const bound = this.first + limit;
    const young = this.statements.firstYoung.get(cutoff, bound) as { seq: number } | undefined;
    // Every event before the first young one is old; with none among the next `limit`, all of those are.
    const upTo = young === undefined ? Math.min(this.last, bound - 1) : young.seq - 1;
    return upTo < this.first ? 0 : this.removeThrough(upTo, 'age');
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
  }

  private removeOldest(count: number, reason: RemovalReason): number {
    return this.removeThrough(this.first + count - 1, reason);
  }

  private removeThrough(seq: number, reason: RemovalReason): number {
    const removed = Number(this.statements.deleteThrough.run(seq).changes);
    this.rows -= removed;
    const first = (this.statements.first.get() as { seq: number | null }).seq;
    this.first = first ?? this.last + 1;
    if (removed > 0) this.options.onRemoved?.(reason, removed);
    return removed;
  }

  private transaction(work: () => void): void {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      work();
      this.db.exec('COMMIT');
    } catch (error) {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      throw error;
    }
  }
}

function prepare(db: DatabaseSync) {
  const statement = (sql: string): StatementSync => db.prepare(sql);
  return {
    allRules: statement('SELECT camera, json, updated_at FROM rules ORDER BY camera'),
    putRules: statement(
      'INSERT INTO rules (camera, json, updated_at) VALUES (?, ?, ?) ON CONFLICT (camera) DO UPDATE SET json = excluded.json, updated_at = excluded.updated_at',
    ),
    addCamera: statement('INSERT OR IGNORE INTO cameras (name) VALUES (?)'),
    cameras: statement('SELECT name FROM cameras ORDER BY name'),
    insertEvent: statement('INSERT INTO events (id, camera, rule, type, stored_at, json) VALUES (?, ?, ?, ?, ?, ?)'),
    after: statement('SELECT seq, json FROM events WHERE seq > ? ORDER BY seq LIMIT ?'),
    afterOfCamera: statement('SELECT seq, json FROM events WHERE camera = ? AND seq > ? ORDER BY seq LIMIT ?'),
    addCount: statement(
      'INSERT INTO counts (camera, rule, kind, label, count) VALUES (?, ?, ?, ?, 1) ON CONFLICT (camera, rule, kind, label) DO UPDATE SET count = count + 1',
    ),
    deleteCount: statement('DELETE FROM counts WHERE camera = ? AND rule = ? AND kind = ? AND label = ?'),
    counts: statement(
      "SELECT rule, kind, label, count FROM counts WHERE camera = ? ORDER BY rule, CASE kind WHEN 'in' THEN 0 WHEN 'out' THEN 1 WHEN 'enter' THEN 2 ELSE 3 END, label",
    ),
    countsOfRule: statement(
      "SELECT rule, kind, label, count FROM counts WHERE camera = ? AND rule = ? ORDER BY CASE kind WHEN 'in' THEN 0 WHEN 'out' THEN 1 WHEN 'enter' THEN 2 ELSE 3 END, label",
    ),
    cursor: statement('SELECT seq FROM cursors WHERE sink = ?'),
    setCursor: statement('INSERT INTO cursors (sink, seq) VALUES (?, ?) ON CONFLICT (sink) DO UPDATE SET seq = excluded.seq'),
    firstYoung: statement('SELECT seq FROM events WHERE stored_at >= ? AND seq < ? ORDER BY seq LIMIT 1'),
    first: statement('SELECT MIN(seq) AS seq FROM events'),
    deleteThrough: statement('DELETE FROM events WHERE seq <= ?'),
  };
}
