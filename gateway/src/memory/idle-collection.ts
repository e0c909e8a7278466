/**
 * One full garbage collection of the main isolate once the gateway has gone quiet after its memory grew.
 *
 * Under load V8 grows its heap and keeps the load's buffers (frames, replies, socket chunks) until it next
 * collects. An idle gateway allocates almost nothing, so that collection may not come for minutes, and V8's
 * memory reducer declines while the heap is still at the size the load gave it (traced with
 * `--trace-memory-reducer`: "high alloc" at every check). Measured under `pnpm start` (docs/RELIABILITY.md,
 * *Under pnpm start*): 10 s after the fuzz corpus, the large images and the 50-camera soak, RSS stood up to
 * +94 MiB above warm idle; after one full collection, at most +29. A collection of a ~100 MiB heap takes tens
 * of milliseconds, so it runs only when no frame is processed or waiting, and only after the heap and its
 * buffers grew by `growthBytes` since the last one.
 */
import { Session } from 'node:inspector/promises';
import type { Logger } from '../logger.ts';

export interface IdleCollectionOptions {
  /** Frames processed and waiting now: the gateway is quiet when both are 0 at two checks in a row. */
  load: () => { running: number; waiting: number };
  /** How often to look (ms); a collection comes one to two periods after the gateway went quiet. */
  periodMs: number;
  /** Growth of V8's heap and the buffers it holds (bytes) since the last collection that makes one worth it. */
  growthBytes: number;
  logger: Logger;
  /** Collects; the engine's own by default. */
  collect?: () => Promise<void>;
  /** Bytes V8 holds now; its committed heap + external buffers by default. */
  heldBytes?: () => number;
}

export interface IdleCollection {
  /** Collections made so far. */
  readonly collections: number;
  stop(): void;
}

/**
 * The engine's full collection that also gives freed pages back (what DevTools' "collect garbage" does),
 * through the inspector's in-process session: no port is opened. Measured on a heap that had held 90 MB of
 * buffers and arrays: RSS 244 -> 179 MB; V8's `gc()` exposed by `--expose-gc` collected but kept the pages
 * (246 -> 246 MB).
 */
export async function engineCollection(): Promise<void> {
  const session = new Session();
  session.connect();
  try {
    await session.post('HeapProfiler.collectGarbage');
  } finally {
    session.disconnect();
  }
}

/** V8's committed heap (used or not: a grown heap keeps its pages until it is reduced) and the buffers it holds. */
function heldNow(): number {
  const usage = process.memoryUsage();
  return usage.heapTotal + usage.external;
}

export function startIdleCollection(options: IdleCollectionOptions): IdleCollection {
  const collect = options.collect ?? engineCollection;
  const heldBytes = options.heldBytes ?? heldNow;
  let collections = 0;
  let collecting = false;
  let baseline = heldBytes();
  let quietChecks = 0;
  const timer = setInterval(() => {
    const { running, waiting } = options.load();
    quietChecks = running === 0 && waiting === 0 ? quietChecks + 1 : 0;
    if (quietChecks < 2 || collecting) return;
    const held = heldBytes();
    if (held - baseline < options.growthBytes) {
      // Memory given back on its own counts too: growth is measured from the lowest point since.
      baseline = Math.min(baseline, held);
      return;
    }
    const started = performance.now();
    collecting = true;
    collect().then(
      () => {
        collecting = false;
        collections++;
        baseline = heldBytes();
        options.logger.info(
          { ms: Math.round(performance.now() - started), freedMb: Math.round((held - baseline) / 2 ** 20) },
          'idle: collected garbage',
        );
      },
      (error: unknown) => {
        // An engine without the inspector: memory grown under load is given back when V8 decides.
        clearInterval(timer);
        options.logger.warn({ err: error }, 'idle: no full garbage collection available');
      },
    );
  }, options.periodMs);
  // Never what keeps the process alive.
  timer.unref();
  return {
    get collections() {
      return collections;
    },
    stop: () => clearInterval(timer),
  };
}
