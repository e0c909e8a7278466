/**
 * The harness of the bare loops (inference.ts, pipeline.ts): S worker threads, each looping on
 * its own onnxruntime session, started together once every one has loaded and warmed up, stopped by one
 * shared deadline. Each worker answers `ready`, then `done` with its counts.
 *
 * A worker is terminated only once every stream is out of its loop: onnxruntime aborts the whole process
 * when a thread is torn down inside a run, so a stream that fails first sends the others straight to
 * their end instead.
 */
import { Worker } from 'node:worker_threads';

/** What a stream reports when the deadline has passed: runs, time inside them, per-stage sums (ms), counts. */
export interface StreamDone {
  runs: number;
  busyMs: number;
  stageMs?: Record<string, number>;
  counts?: Record<string, number>;
}

export interface StreamsResult {
  /** Runs per second, every stream counted. */
  fps: number;
  /** Mean time of one run. */
  meanMs: number;
  runs: number;
  /** Mean time per run of each stage the workers timed. */
  stageMs: Record<string, number>;
  /** Sums of what the workers counted. */
  counts: Record<string, number>;
}

/** What each bare loop reports: its throughput and the shape of the run that gave it. */
export interface BareLoopFigures {
  /** Runs per second (one run: one frame, in the decode + inference loop), every stream counted. */
  fps: number;
  /** Mean time of one run. */
  meanMs: number;
  runs: number;
  streams: number;
  threads: number;
  model: string;
}

export function bareLoopFigures(
  { fps, meanMs, runs }: StreamsResult,
  { streams, threads }: { streams: number; threads: number },
  model: string,
): BareLoopFigures {
  return { fps, meanMs, runs, streams, threads, model };
}

function next<T>(worker: Worker, type: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    worker.once('error', reject);
    worker.on('message', (message: { type: string } & T) => {
      if (message.type === type) resolve(message);
    });
  });
}

const failure = (results: ReadonlyArray<PromiseSettledResult<unknown>>) =>
  results.find((r): r is PromiseRejectedResult => r.status === 'rejected');

export async function runStreams(entry: URL, setups: readonly unknown[], seconds: number): Promise<StreamsResult> {
  const workers = setups.map((workerData) => new Worker(entry, { workerData }));
  try {
    const ready = await Promise.allSettled(workers.map((w) => next(w, 'ready')));
    const failed = failure(ready);
    const live = workers.filter((_, i) => ready[i]!.status === 'fulfilled');
    const started = performance.now();
    const done = live.map((w) => next<StreamDone>(w, 'done'));
    // performance.now() differs per thread; the deadline goes as wall-clock time (now: stop at once).
    const deadline = failed ? Date.now() : Date.now() + seconds * 1000;
    for (const w of live) w.postMessage({ deadline });
    const settled = await Promise.allSettled(done);
    const elapsed = performance.now() - started;
    const error = failed ?? failure(settled);
    if (error) throw error.reason;
    const results = settled.map((r) => (r as PromiseFulfilledResult<StreamDone>).value);
    const runs = results.reduce((a, r) => a + r.runs, 0);
    const stageMs: Record<string, number> = {};
    const counts: Record<string, number> = {};
    for (const r of results) {
      for (const [k, v] of Object.entries(r.stageMs ?? {})) stageMs[k] = (stageMs[k] ?? 0) + v / runs;
      for (const [k, v] of Object.entries(r.counts ?? {})) counts[k] = (counts[k] ?? 0) + v;
    }
    return { fps: (runs * 1000) / elapsed, meanMs: results.reduce((a, r) => a + r.busyMs, 0) / runs, runs, stageMs, counts };
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
