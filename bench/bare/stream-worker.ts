/**
 * The worker side of the bare loops' harness (streams.ts), shared by both loops' workers: says `ready` once
 * the stream has loaded and warmed up, then, on the start message, runs until the shared deadline and
 * answers `done` with its counts.
 */
import { parentPort } from 'node:worker_threads';
import type { StreamDone } from './streams.ts';

/**
 * @param runOnce one timed run; `run` counts the runs before it (a stream cycling through frames picks its next with it)
 * @param finish after the last run: releases what the stream holds and gives what it counted besides runs and time
 */
export function serveStream(runOnce: (run: number) => Promise<unknown>, finish: () => Promise<Omit<StreamDone, 'runs' | 'busyMs'>>): void {
  const port = parentPort!;
  port.postMessage({ type: 'ready' });
  port.once('message', async ({ deadline }: { deadline: number }) => {
    let runs = 0;
    let busyMs = 0;
    // performance.now() differs per thread; the deadline comes as wall-clock time.
    // At least one run per stream, however busy the machine: a result is never empty.
    do {
      const started = performance.now();
      await runOnce(runs);
      busyMs += performance.now() - started;
      runs++;
    } while (Date.now() < deadline);
    port.postMessage({ type: 'done', runs, busyMs, ...(await finish()) });
  });
}
