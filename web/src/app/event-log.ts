/** Gateway errors and client notices as a short log: identical consecutive entries collapse into one. */

export interface LogEntry {
  key: number;
  /** Date.now() of the first and of the latest occurrence. */
  firstAt: number;
  lastAt: number;
  /** Error code (gateway) or a short tag (client). */
  code: string;
  message: string;
  /** The message id the gateway named, for the latest occurrence. */
  id?: number;
  count: number;
}

export class EventLog {
  private entries: LogEntry[] = [];
  private nextKey = 1;
  private version = 0;

  constructor(private readonly capacity = 100) {}

  get revision(): number {
    return this.version;
  }

  add(code: string, message: string, at: number = Date.now(), id?: number): LogEntry {
    const last = this.entries[this.entries.length - 1];
    this.version++;
    if (last && last.code === code && last.message === message) {
      const updated = { ...last, lastAt: at, count: last.count + 1, id };
      this.entries[this.entries.length - 1] = updated;
      return updated;
    }
    const entry: LogEntry = { key: this.nextKey++, firstAt: at, lastAt: at, code, message, id, count: 1 };
    this.entries.push(entry);
    if (this.entries.length > this.capacity) this.entries.splice(0, this.entries.length - this.capacity);
    return entry;
  }

  /** Newest last. */
  list(): readonly LogEntry[] {
    return this.entries;
  }

  clear(): void {
    this.entries = [];
    this.version++;
  }
}
