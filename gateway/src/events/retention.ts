/**
 * Retention by age: every `periodMs`, the events older than `maxAgeMs` are removed, oldest first, `chunk` at a
 * time (the database is synchronous: a chunk is a few milliseconds of the event loop, and the next one follows
 * at once until none is left). Retention by rows happens on insert (EventStore.append).
 */
export interface RetentionOptions {
  removeOlderThan(cutoff: number, limit: number): number;
  maxAgeMs: number;
  periodMs: number;
  chunk?: number;
  now?: () => number;
  onError(error: unknown): void;
}

const CHUNK = 5000;

export function startRetention(options: RetentionOptions): { stop(): void } {
  const now = options.now ?? Date.now;
  const chunk = options.chunk ?? CHUNK;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(run, ms);
    timer.unref();
  };
  const run = () => {
    let removed = 0;
    try {
      removed = options.removeOlderThan(now() - options.maxAgeMs, chunk);
    } catch (error) {
      options.onError(error);
    }
    schedule(removed >= chunk ? 0 : options.periodMs);
  };
  schedule(0);
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
