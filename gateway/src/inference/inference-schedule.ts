/**
 * Where the next frame's inference runs, and with how many threads. A frame alone gets every intra-op
 * thread (the lowest latency for one client); once frames queue up, several run side by side on one
 * thread share each (the highest throughput: a small model's many small operators keep one thread busy
 * far better than several). Measured on 2 cores (docs/BENCHMARKS.md): 6 clients with two single-thread
 * runs side by side had 30% lower latency than with one two-thread run at a time, while one client was
 * 25% slower with a single thread.
 */

/** A worker as a place to run on. */
export interface WorkerState {
  /** Running a frame now. */
  busy: boolean;
  /** Running a frame with every thread: nothing else may start until it ends. */
  busyWide: boolean;
  /** Holds sessions with every thread (only the first worker does). */
  canRunWide: boolean;
}

/** Where a run starts: the worker (its index), and whether it gets every thread. Good until the next start or end. */
export interface Place {
  readonly worker: number;
  readonly wide: boolean;
}

/**
 * Where the next run starts, or undefined when it must wait; call again after each start or end. Whether it
 * should have every thread is the frame policy's call (`runsWide`); it gets them when nothing runs and a worker
 * holds sessions with every thread.
 */
export function nextPlace(workers: readonly WorkerState[], wide: boolean): Place | undefined {
  if (workers.some((w) => w.busyWide)) return undefined;
  if (wide && !workers.some((w) => w.busy)) {
    const widest = workers.findIndex((w) => w.canRunWide);
    if (widest >= 0) return { worker: widest, wide: true };
  }
  const idle = workers.findIndex((w) => !w.busy);
  return idle >= 0 ? { worker: idle, wide: false } : undefined;
}

/** Threads per run when frames run side by side: an equal share of the wide run's threads. */
export function sharedThreads(threads: number, workers: number): number {
  return Math.max(1, Math.floor(threads / workers));
}
