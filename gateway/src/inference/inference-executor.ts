/**
 * The inference workers, as the scheduler's executor: a fixed set of worker threads, one run (a frame, or a
 * batch of one model's frames) per worker at a time, and no queue of their own - the fair scheduler
 * (scheduling/fair-scheduler.ts) is the gateway's one queue and starts frames straight on a free worker. A
 * frame alone runs on the first worker with every thread; frames that start while others run, side by side
 * on all workers with a share each (inference-schedule.ts).
 *
 * A worker is never terminated while it runs a model: onnxruntime aborts the whole process when its
 * thread is torn down mid-run. close() waits for the runs, then asks each worker to stop by itself.
 */
import { Worker } from 'node:worker_threads';
// Loaded here, on the main thread, although only the workers decode with it: glibc unloads a shared
// library when its last user goes, and libvips torn down by an exiting worker (a crashed one is replaced)
// would crash the next. Kept loaded by the main thread, it never is (sharp's documentation on threads).
import 'sharp';
import type { FrameResult } from '@sightline/shared/model';
import { ProtocolError } from '@sightline/shared/validation';
import type { FrameSource } from '../decode/frame-decoder.ts';
import type { Logger } from '../logger.ts';
import type { ModelSpec } from '../models/manifest.ts';
import type { WorkerReply, WorkerRequest, WorkerSetup } from './inference-messages.ts';
import { nextPlace, sharedThreads, type Place } from './inference-schedule.ts';

/** One frame for a worker: its model, its score threshold, and the frame as admission read it (or its pixels). */
export interface InferenceJob {
  model: string;
  threshold: number;
  frame: FrameSource;
}

interface Job {
  jobId: number;
  settle: (outcome: FrameResult | Error) => void;
}

/** One worker thread and what it runs now. */
interface WorkerHandle {
  worker: Worker;
  /** The frames it runs now: one, or a batch of one model's frames run together. */
  jobs: Job[];
  /** Model loads and unloads sent to this worker, by request id. */
  requests: Map<number, { resolve: (batchable: boolean) => void; reject: (error: Error) => void }>;
  /** Called once the running job settles (close() waits for them). */
  idleWaiters: (() => void)[];
  /** The running job has every thread. */
  wide: boolean;
  /** Its jobs were handed to the worker (not still waiting at the gate). */
  posted: boolean;
  /** The first worker also holds sessions with every thread. */
  canRunWide: boolean;
  /** Fires when its run has taken longer than a run may (`stallMs`). */
  watchdog: ReturnType<typeof setTimeout> | undefined;
}

export interface InferenceExecutorOptions {
  /** Intra-op threads of a frame that runs alone. */
  threads: number;
  /** Frames that may run side by side when they queue up, each on an equal share of `threads`. */
  workers: number;
  /** Largest image, in pixels, any decoder may take. */
  maxPixels: number;
  /** Decode JPEG in the workers with libjpeg-turbo where it is available (sharp otherwise). */
  turbo: boolean;
  /** Bound on one request to a remote inference engine (models with an `engine`). */
  engineTimeoutMs?: number;
  logger: Logger;
  /** Called as each run starts: `wide` when it has every thread; `frames` run together. */
  onRun?: (wide: boolean, frames: number) => void;
  /** Frames of one model run as one batch when they start together, if its graph takes a batch (1: never). */
  maxBatch?: number;
  /** Every run passes it before it reaches its worker (see DispatchGate). */
  gate?: DispatchGate;
  /**
   * A run that has not returned this long after it reached its worker has stalled (ms, DEFAULT_STALL_MS): its
   * frames are answered `unavailable` and a new worker takes the stalled one's place.
   */
  stallMs?: number;
}

/** How long a run may take before the watchdog calls its worker stalled: far beyond any model's run on a CPU. */
export const DEFAULT_STALL_MS = 10_000;
/** When a client whose frame stalled should send again: about when the new worker has opened its models. */
const STALL_RETRY_AFTER_MS = 1000;

/**
 * Holds frames that are being processed, as far as the scheduler knows, before they reach a worker: the
 * seam the integration tests use to keep frames in flight for as long as they need to, so what they assert
 * (which frames wait, which are refused, what a drain answers) does not depend on how fast inference is.
 * The gateway itself passes none.
 */
export interface DispatchGate {
  wait(): Promise<void>;
}

/**
 * From TypeScript source (tsx, vitest) this module is a .ts file, and the worker starts from an .mjs entry
 * that registers tsx first. In the production bundle (`pnpm --filter @sightline/gateway build`) this module
 * is inside gateway/dist/main.mjs, and the worker is bundled beside it: nothing is compiled at run time.
 */
const WORKER_URL = import.meta.url.endsWith('.ts')
  ? new URL('./inference-worker-entry.mjs', import.meta.url)
  : new URL('./inference-worker.mjs', import.meta.url);
/** A worker told to stop has this long to release its sessions and exit before it is terminated (idle by then). */
const WORKER_STOP_MS = 5000;

export class InferenceExecutor {
  private readonly workers: WorkerHandle[] = [];
  /** Workers whose run stalled: out of service, asked to stop once their run returns (never terminated mid-run). */
  private readonly stalled = new Set<WorkerHandle>();
  private readonly freeListeners: (() => void)[] = [];
  private nextJobId = 1;
  private closed = false;
  private turboInWorkers = true;
  /** What every worker has open (a replacement worker opens them all before it takes frames). */
  private readonly models = new Map<string, ModelSpec>();
  /** The models whose graph takes a batch of frames (reported by the workers on load). */
  private readonly batchable = new Set<string>();
  private nextRequestId = 1;

  private constructor(private readonly options: InferenceExecutorOptions) {}

  /** Starts the workers with no model open; `load` opens each. */
  static async start(options: InferenceExecutorOptions): Promise<InferenceExecutor> {
    const pool = new InferenceExecutor(options);
    // A run "with every thread" is worth keeping the other workers idle for only if it gets more threads than a share.
    const wideGetsMore = options.threads > sharedThreads(options.threads, options.workers);
    await Promise.all(Array.from({ length: options.workers }, (_, i) => pool.spawnWorker(i === 0 && wideGetsMore)));
    return pool;
  }

  /** The models every worker has open. */
  get modelNames(): string[] {
    return [...this.models.keys()];
  }

  /**
   * Opens `spec` in every worker, replacing a model of the same name: frames dispatched from then on run
   * on it, a frame already running finishes on the old one. Rejects with onnxruntime's reason when any
   * worker cannot open it, and then leaves what was open before as it was.
   */
  async load(spec: ModelSpec): Promise<void> {
    const name = spec.manifest.name;
    const results = await Promise.allSettled(this.workers.map((handle) => this.request(handle, { type: 'load', spec })));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) {
      const previous = this.models.get(name);
      // The workers that did open it go back to what the others still have.
      await Promise.allSettled(
        this.workers.map((handle, i) =>
          results[i]!.status !== 'fulfilled'
            ? undefined
            : this.request(handle, previous ? { type: 'load', spec: previous } : { type: 'unload', model: name }),
        ),
      );
      throw failed.reason as Error;
    }
    this.models.set(name, spec);
    const batchable = results.every((r) => r.status === 'fulfilled' && r.value);
    if (batchable) this.batchable.add(name);
    else this.batchable.delete(name);
  }

  /** Closes a model in every worker once no frame runs on it; frames asking for it from then on are `unknown_model`. */
  async unload(name: string): Promise<void> {
    this.models.delete(name);
    this.batchable.delete(name);
    await Promise.allSettled(this.workers.map((handle) => this.request(handle, { type: 'unload', model: name })));
  }

  /** Workers in all: runs side by side at most. */
  get places(): number {
    return this.options.workers;
  }

  /** Workers a run could start on now (none while a run has every thread). */
  get freePlaces(): number {
    if (this.closed || this.workers.some((handle) => handle.wide)) return 0;
    return this.workers.filter((handle) => handle.jobs.length === 0).length;
  }

  /** The workers decode JPEG with libjpeg-turbo (found, and not turned off): decode plans may pick it. */
  get decodesJpeg(): boolean {
    return this.options.turbo && this.turboInWorkers;
  }

  get healthy(): boolean {
    return !this.closed && this.workers.length === this.options.workers;
  }

  /** Called whenever a worker frees up, or a replaced one is ready: the scheduler starts what waits. */
  onFree(listener: () => void): void {
    this.freeListeners.push(listener);
  }

  /** Where the next run starts: with every thread when `wide` and nothing runs, otherwise an idle worker with a share. */
  placeFor(wide: boolean): Place | undefined {
    if (this.closed) return undefined;
    return nextPlace(
      this.workers.map((handle) => ({ busy: handle.jobs.length > 0, busyWide: handle.wide, canRunWide: handle.canRunWide })),
      wide,
    );
  }

  /** How many frames of this job's model may run as one batch (its graph takes a batch, SIGHTLINE_MAX_BATCH). */
  batchLimit(job: InferenceJob): number {
    return this.batchable.has(job.model) ? (this.options.maxBatch ?? 1) : 1;
  }

  batchesWith(first: InferenceJob, other: InferenceJob): boolean {
    return first.model === other.model;
  }

  /**
   * Runs the jobs (one frame, or a batch of one model's) on the place placeFor gave in this same turn. Resolves
   * with each job's result, or its error (a ProtocolError the client may read, or the gateway's own fault), in
   * order; never rejects.
   */
  run(place: Place, jobs: readonly InferenceJob[]): Promise<Array<FrameResult | Error>> {
    const handle = this.workers[place.worker];
    if (this.closed || !handle || handle.jobs.length > 0) {
      const reason = this.closed ? 'the gateway is shutting down' : 'no free inference worker at that place';
      return Promise.resolve(jobs.map(() => new ProtocolError('internal', reason)));
    }
    const outcomes: Array<FrameResult | Error> = new Array(jobs.length);
    let left = jobs.length;
    return new Promise((resolve) => {
      // The worker is taken now, in this turn, so the next placeFor does not hand it out again.
      handle.jobs = jobs.map((_job, i) => ({
        jobId: this.nextJobId++,
        settle: (outcome) => {
          outcomes[i] = outcome;
          if (--left === 0) resolve(outcomes);
        },
      }));
      handle.wide = place.wide;
      handle.posted = false;
      void this.post(handle, place.wide, jobs);
    });
  }

  /** Lets running frames finish, then stops every worker; runs still held at the gate are refused. */
  async close(): Promise<void> {
    this.closed = true;
    const workers = [...this.workers];
    for (const handle of workers) if (!handle.posted) this.release(handle, new ProtocolError('internal', 'the gateway is shutting down'));
    await Promise.all(
      workers.map((handle) => (handle.jobs.length > 0 ? new Promise<void>((resolve) => handle.idleWaiters.push(resolve)) : undefined)),
    );
    await Promise.all(workers.map((handle) => stopWorker(handle.worker)));
    this.workers.length = 0;
  }

  private get sharedThreads(): number {
    return sharedThreads(this.options.threads, this.options.workers);
  }

  /** Hands the jobs to the worker once the gate lets them through; each frame's bytes are moved, not copied. */
  private async post(handle: WorkerHandle, wide: boolean, jobs: readonly InferenceJob[]): Promise<void> {
    if (this.options.gate) await this.options.gate.wait();
    const running = handle.jobs;
    // The worker exited, or the executor closed, while the run waited at the gate: its jobs are answered already.
    if (!this.workers.includes(handle) || this.closed || running.length === 0) return;
    handle.posted = true;
    const frames = jobs.map(({ threshold, frame }, i) => ({ jobId: running[i]!.jobId, threshold, frame: ownedFrame(frame) }));
    const request: WorkerRequest = {
      type: 'run',
      model: jobs[0]!.model,
      threads: wide ? this.options.threads : this.sharedThreads,
      frames,
    };
    handle.worker.postMessage(
      request,
      frames.map(({ frame }) => (frame.kind === 'encoded' ? frame.bytes.buffer : frame.rgb.data.buffer) as ArrayBuffer),
    );
    handle.watchdog = setTimeout(() => this.stall(handle), this.options.stallMs ?? DEFAULT_STALL_MS);
    handle.watchdog.unref?.();
    this.options.onRun?.(wide, jobs.length);
  }

  /** Answers every job of a worker's run with `error` and frees the worker. */
  private release(handle: WorkerHandle, error: Error): void {
    clearTimeout(handle.watchdog);
    for (const job of handle.jobs.splice(0)) job.settle(error);
    handle.wide = false;
    for (const resolve of handle.idleWaiters.splice(0)) resolve();
  }

  /**
   * The watchdog: a run that has not returned in `stallMs` took its worker out of service. Its frames are
   * answered at once; a new worker (with every model open) takes its place, up to as many stalled at once as
   * there are workers. The stalled one cannot be terminated mid-run (onnxruntime would abort the process): it
   * is asked to stop once its run returns, and meanwhile keeps the process from exiting no longer.
   */
  private stall(handle: WorkerHandle): void {
    const index = this.workers.indexOf(handle);
    if (index < 0 || handle.jobs.length === 0 || this.closed) return;
    const stallMs = this.options.stallMs ?? DEFAULT_STALL_MS;
    this.workers.splice(index, 1);
    this.stalled.add(handle);
    handle.worker.unref();
    const frames = handle.jobs.length;
    this.release(
      handle,
      new ProtocolError(
        'unavailable',
        `inference took longer than ${stallMs} ms on this frame; its worker is being replaced: send it again`,
        undefined,
        STALL_RETRY_AFTER_MS,
      ),
    );
    if (this.stalled.size > this.options.workers) {
      this.options.logger.error(
        { frames, stallMs, stalled: this.stalled.size },
        'inference worker stalled; too many stalled to replace it',
      );
      return;
    }
    this.options.logger.error({ frames, stallMs }, 'inference worker stalled: its frames are answered, a new worker takes its place');
    this.spawnWorker(handle.canRunWide).catch((error: unknown) => this.options.logger.error({ err: error }, 'restart failed'));
  }

  private freed(): void {
    for (const listener of this.freeListeners) listener();
  }

  /** Sends a load or unload to one worker; resolves on its answer. */
  private request(
    handle: WorkerHandle,
    message: DistributiveOmit<Extract<WorkerRequest, { requestId: number }>, 'requestId'>,
  ): Promise<boolean> {
    const requestId = this.nextRequestId++;
    return new Promise<boolean>((resolve, reject) => {
      handle.requests.set(requestId, { resolve, reject });
      handle.worker.postMessage({ ...message, requestId } as WorkerRequest);
    });
  }

  private spawnWorker(canRunWide: boolean): Promise<void> {
    const threadCounts = [...new Set(canRunWide ? [this.options.threads, this.sharedThreads] : [this.sharedThreads])];
    const setup: WorkerSetup = {
      threadCounts,
      maxPixels: this.options.maxPixels,
      turbo: this.options.turbo,
      engineTimeoutMs: this.options.engineTimeoutMs ?? 2000,
    };
    const worker = new Worker(WORKER_URL, { workerData: setup });
    const handle: WorkerHandle = {
      worker,
      jobs: [],
      requests: new Map(),
      idleWaiters: [],
      wide: false,
      posted: false,
      canRunWide,
      watchdog: undefined,
    };
    return new Promise<void>((resolveReady, rejectReady) => {
      let ready = false;
      worker.on('message', (reply: WorkerReply) => {
        if (reply.type === 'ready') {
          if (this.options.turbo && !reply.turbo && this.turboInWorkers) {
            this.options.logger.warn('libjpeg-turbo is not available on this platform: sharp decodes every frame');
          }
          this.turboInWorkers &&= reply.turbo;
          // A replacement opens every model the others have before it takes a frame.
          Promise.all([...this.models.values()].map((spec) => this.request(handle, { type: 'load', spec }))).then(
            () => {
              ready = true;
              this.workers.push(handle);
              resolveReady();
              this.freed();
            },
            (error: unknown) => {
              rejectReady(error as Error);
              void worker.terminate();
            },
          );
        } else if (reply.type === 'loaded' || reply.type === 'unloaded' || reply.type === 'load_failed') {
          const pending = handle.requests.get(reply.requestId);
          handle.requests.delete(reply.requestId);
          if (reply.type === 'load_failed') pending?.reject(new Error(reply.message));
          else pending?.resolve(reply.type === 'loaded' && reply.batchable);
        } else if (this.stalled.has(handle)) {
          // The stalled run returned at last: its frames were answered long ago, and the worker's place is taken.
          void stopWorker(worker);
        } else {
          this.settle(handle, reply);
        }
      });
      worker.on('error', (error) => {
        this.options.logger.error({ err: error }, 'inference worker failed');
        if (!ready) rejectReady(error);
      });
      worker.on('exit', (code) => {
        if (this.stalled.delete(handle)) return;
        const index = this.workers.indexOf(handle);
        if (index >= 0) this.workers.splice(index, 1);
        this.release(handle, new ProtocolError('internal', `inference worker exited (code ${code})`));
        for (const pending of handle.requests.values()) pending.reject(new Error(`inference worker exited (code ${code})`));
        handle.requests.clear();
        if (!ready) rejectReady(new Error(`inference worker exited during start (code ${code})`));
        // A crashed worker is replaced so one bad frame cannot take the gateway's inference down for good.
        if (ready && !this.closed) {
          this.options.logger.warn({ code }, 'restarting inference worker');
          this.spawnWorker(canRunWide).catch((error: unknown) => this.options.logger.error({ err: error }, 'restart failed'));
        }
      });
    });
  }

  private settle(handle: WorkerHandle, reply: Extract<WorkerReply, { jobId: number }>): void {
    const index = handle.jobs.findIndex((job) => job.jobId === reply.jobId);
    const job = index >= 0 ? handle.jobs.splice(index, 1)[0] : undefined;
    if (handle.jobs.length === 0) {
      clearTimeout(handle.watchdog);
      handle.wide = false;
      for (const resolve of handle.idleWaiters.splice(0)) resolve();
    }
    if (!job) {
      this.options.logger.error({ jobId: reply.jobId }, 'inference reply for an unknown job');
    } else if (reply.type === 'failed') {
      // The client's fault (an image no decoder takes) is the client's to read; the gateway's is logged, not sent.
      job.settle(
        reply.code === 'internal'
          ? new Error(`inference failed: ${reply.message}`)
          : new ProtocolError(reply.code, reply.message, undefined, reply.retryAfterMs),
      );
    } else {
      job.settle(reply.result);
    }
    if (handle.jobs.length === 0) this.freed();
  }
}

type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;

/**
 * The frame in buffers of its own, so they can be moved to the worker: a WebSocket message's bytes may share
 * their buffer with other messages; decoded pixels made for this frame alone move as they are.
 */
export function ownedFrame(frame: FrameSource): FrameSource {
  if (frame.kind === 'encoded') return { ...frame, bytes: new Uint8Array(frame.bytes) };
  const { data } = frame.rgb;
  const own = data.byteOffset === 0 && data.byteLength === data.buffer.byteLength ? data : new Uint8Array(data);
  return { ...frame, rgb: { ...frame.rgb, data: own } };
}

/** Asks an idle worker to release its sessions and end; terminates it only if it does not. */
function stopWorker(worker: Worker): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => void worker.terminate(), WORKER_STOP_MS);
    worker.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    const stop: WorkerRequest = { type: 'stop' };
    worker.postMessage(stop);
  });
}
