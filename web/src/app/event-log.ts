/** Gateway errors and client notices as a short log: identical consecutive entries collapse into one. */
import { Signal } from '../events/signal.ts';

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
  /** An entry was added (or repeated), or the log cleared. */
  readonly changed = new Signal<void>();
  private entries: LogEntry[] = [];
  private nextKey = 1;

  constructor(private readonly capacity = 100) {}

  add(code: string, message: string, at: number = Date.now(), id?: number): LogEntry {
    const entry = this.append(code, message, at, id);
    this.changed.emit();
    return entry;
  }

  /** Newest last. */
  list(): readonly LogEntry[] {
    return this.entries;
  }

  clear(): void {
    this.entries = [];
    this.changed.emit();
  }

  private append(code: string, message: string, at: number, id: number | undefined): LogEntry {
    const last = this.entries[this.entries.length - 1];
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
}
