/**
 * Where the next frame's inference runs, and with how many threads. A frame alone gets every intra-op
 * thread (the lowest latency for one client); once frames queue up, several run side by side on one
 * thread share each (the highest throughput: a small model's many small operators keep one thread busy
 * far better than several). Measured on 2 cores (docs/BENCHMARKS.md): 6 clients with two single-thread
 * runs side by side had 30% lower latency than with one two-thread run at a time, while one client was
 * 25% slower with a single thread.
 */

export interface SlotState {
  /** Running a frame now. */
  busy: boolean;
  /** Running a frame with every thread: nothing else may start until it ends. */
  busyWide: boolean;
  /** Holds sessions with every thread (only the first worker does). */
  canRunWide: boolean;
}

export interface Dispatch {
  slot: number;
  wide: boolean;
}

/**
 * The next frame to start, or undefined when it must wait; call again after each start or end. `pressed`:
 * frames are being refused, so others will arrive while this one runs; it then runs on a thread share too, or
 * those would wait for the wide run to end (50 cameras at 5x overload on 2 cores: 87-119 detections/s in six
 * soaks with a wide run whenever one frame was ready, three of them near 88; 106-118 in eight without).
 */
export function nextDispatch(slots: readonly SlotState[], waiting: number, pressed = false): Dispatch | undefined {
  if (waiting === 0 || slots.some((s) => s.busyWide)) return undefined;
  const running = slots.filter((s) => s.busy).length;
  if (running === 0 && waiting === 1 && !pressed) {
    const wide = slots.findIndex((s) => s.canRunWide);
    if (wide >= 0) return { slot: wide, wide: true };
  }
  const idle = slots.findIndex((s) => !s.busy);
  return idle >= 0 ? { slot: idle, wide: false } : undefined;
}

/** Threads per run when frames run side by side: an equal share of the wide run's threads. */
export function sharedThreads(threads: number, workers: number): number {
  return Math.max(1, Math.floor(threads / workers));
}
