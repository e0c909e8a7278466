/**
 * The inference workers: a FIFO of frames in front of a fixed set of worker threads, one frame per
 * worker at a time. A frame alone runs on the first worker with every thread; frames that queue up run
 * side by side on all workers with a share each (inference-schedule.ts). The FIFO stays short: the fair
 * scheduler (scheduling/fair-scheduler.ts) admits only a few more frames than there are workers.
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
import type { Logger } from '../logger.ts';
import type { ModelSpec } from '../models/manifest.ts';
import type { WorkerReply, WorkerRequest, WorkerSetup } from './inference-messages.ts';
import { nextDispatch, sharedThreads } from './inference-schedule.ts';

export interface InferenceJob {
  model: string;
  threshold: number;
  /** Encoded bytes in a buffer of their own: it is handed over to the worker, not copied. */
  image: Uint8Array;
}

export interface InferenceResult extends FrameResult {
  /** Waiting for a free worker. */
  queueMs: number;
  /** Frames run together in the frame's run (1: alone). */
  batch: number;
}

interface Job extends InferenceJob {
  jobId: number;
  enqueuedAt: number;
  dispatchedAt: number;
  resolve: (result: InferenceResult) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  /** The frames it runs now: one, or a batch of one model's frames run together. */
  jobs: Job[];
  /** Model loads and unloads sent to this worker, by request id. */
  requests: Map<number, { resolve: (batchable: boolean) => void; reject: (error: Error) => void }>;
  /** Called once the running job settles (close() waits for them). */
  idleWaiters: (() => void)[];
  /** The running job has every thread. */
  wide: boolean;
  /** The first worker also holds sessions with every thread. */
  canRunWide: boolean;
}

export interface InferencePoolOptions {
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
  /** Frames of one model run as one batch when they queue up, if its graph takes a batch (1: never). */
  maxBatch?: number;
  /** Every frame passes it before it is queued for a worker (see DispatchGate). */
  gate?: DispatchGate;
}

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

export class InferencePool {
  private readonly waiting: Job[] = [];
  private readonly slots: Slot[] = [];
  private nextJobId = 1;
  private closed = false;
  private turboInWorkers = true;
  /** What every worker has open (a replacement worker opens them all before it takes frames). */
  private readonly models = new Map<string, ModelSpec>();
  /** The models whose graph takes a batch of frames (reported by the workers on load). */
  private readonly batchable = new Set<string>();
  private nextRequestId = 1;

  private constructor(private readonly options: InferencePoolOptions) {}

  /** Starts the workers with no model open; `load` opens each. */
  static async start(options: InferencePoolOptions): Promise<InferencePool> {
    const pool = new InferencePool(options);
    await Promise.all(Array.from({ length: options.workers }, (_, i) => pool.spawnSlot(i === 0)));
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
    const results = await Promise.allSettled(this.slots.map((slot) => this.request(slot, { type: 'load', spec })));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) {
      const previous = this.models.get(name);
      // The workers that did open it go back to what the others still have.
      await Promise.allSettled(
        this.slots.map((slot, i) =>
          results[i]!.status !== 'fulfilled'
            ? undefined
            : this.request(slot, previous ? { type: 'load', spec: previous } : { type: 'unload', model: name }),
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
    await Promise.allSettled(this.slots.map((slot) => this.request(slot, { type: 'unload', model: name })));
  }

  get pending(): number {
    return this.waiting.length;
  }

  /** The workers decode JPEG with libjpeg-turbo (found, and not turned off): decode plans may pick it. */
  get decodesJpeg(): boolean {
    return this.options.turbo && this.turboInWorkers;
  }

  get healthy(): boolean {
    return !this.closed && this.slots.length === this.options.workers;
  }

  async run(job: InferenceJob): Promise<InferenceResult> {
    if (this.options.gate) await this.options.gate.wait();
    if (this.closed) throw new ProtocolError('internal', 'the gateway is shutting down');
    return new Promise<InferenceResult>((resolve, reject) => {
      this.waiting.push({
        ...job,
        jobId: this.nextJobId++,
        enqueuedAt: performance.now(),
        dispatchedAt: 0,
        resolve,
        reject,
      });
      this.dispatch();
    });
  }

  /** Lets running frames finish, then stops every worker; frames still queued are refused. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.waiting.splice(0)) job.reject(new ProtocolError('internal', 'the gateway is shutting down'));
    const slots = [...this.slots];
    await Promise.all(
      slots.map((slot) => (slot.jobs.length > 0 ? new Promise<void>((resolve) => slot.idleWaiters.push(resolve)) : undefined)),
    );
    await Promise.all(slots.map((slot) => stopWorker(slot.worker)));
    this.slots.length = 0;
  }

  /**
   * The next frame, and with it the frames of the same model waiting behind it, up to the batch limit, when
   * that model's graph takes a batch: one run for several frames (SIGHTLINE_MAX_BATCH).
   */
  private takeBatch(): Job[] {
    const first = this.waiting.shift()!;
    const limit = this.batchable.has(first.model) ? (this.options.maxBatch ?? 1) : 1;
    const batch = [first];
    for (let i = 0; i < this.waiting.length && batch.length < limit;) {
      if (this.waiting[i]!.model === first.model) batch.push(...this.waiting.splice(i, 1));
      else i++;
    }
    return batch;
  }

  private get sharedThreads(): number {
    return sharedThreads(this.options.threads, this.options.workers);
  }

  private dispatch(): void {
    for (;;) {
      const next = nextDispatch(
        this.slots.map((slot) => ({ busy: slot.jobs.length > 0, busyWide: slot.wide, canRunWide: slot.canRunWide })),
        this.waiting.length,
      );
      if (!next) return;
      const slot = this.slots[next.slot]!;
      const jobs = this.takeBatch();
      slot.jobs = jobs;
      slot.wide = next.wide;
      const dispatchedAt = performance.now();
      for (const job of jobs) job.dispatchedAt = dispatchedAt;
      const threads = next.wide ? this.options.threads : this.sharedThreads;
      const request: WorkerRequest = {
        type: 'run',
        model: jobs[0]!.model,
        threads,
        frames: jobs.map(({ jobId, threshold, image }) => ({ jobId, threshold, image })),
      };
      slot.worker.postMessage(
        request,
        jobs.map((job) => job.image.buffer as ArrayBuffer),
      );
      this.options.onRun?.(next.wide, jobs.length);
    }
  }

  /** Sends a load or unload to one worker; resolves on its answer. */
  private request(slot: Slot, message: DistributiveOmit<Extract<WorkerRequest, { requestId: number }>, 'requestId'>): Promise<boolean> {
    const requestId = this.nextRequestId++;
    return new Promise<boolean>((resolve, reject) => {
      slot.requests.set(requestId, { resolve, reject });
      slot.worker.postMessage({ ...message, requestId } as WorkerRequest);
    });
  }

  private spawnSlot(canRunWide: boolean): Promise<void> {
    const threadCounts = [...new Set(canRunWide ? [this.options.threads, this.sharedThreads] : [this.sharedThreads])];
    const setup: WorkerSetup = {
      threadCounts,
      maxPixels: this.options.maxPixels,
      turbo: this.options.turbo,
      engineTimeoutMs: this.options.engineTimeoutMs ?? 2000,
    };
    const worker = new Worker(WORKER_URL, { workerData: setup });
    const slot: Slot = { worker, jobs: [], requests: new Map(), idleWaiters: [], wide: false, canRunWide };
    return new Promise<void>((resolveReady, rejectReady) => {
      let ready = false;
      worker.on('message', (reply: WorkerReply) => {
        if (reply.type === 'ready') {
          if (this.options.turbo && !reply.turbo && this.turboInWorkers) {
            this.options.logger.warn('libjpeg-turbo is not available on this platform: sharp decodes every frame');
          }
          this.turboInWorkers &&= reply.turbo;
          // A replacement opens every model the others have before it takes a frame.
          Promise.all([...this.models.values()].map((spec) => this.request(slot, { type: 'load', spec }))).then(
            () => {
              ready = true;
              this.slots.push(slot);
              resolveReady();
              this.dispatch();
            },
            (error: unknown) => {
              rejectReady(error as Error);
              void worker.terminate();
            },
          );
        } else if (reply.type === 'loaded' || reply.type === 'unloaded' || reply.type === 'load_failed') {
          const pending = slot.requests.get(reply.requestId);
          slot.requests.delete(reply.requestId);
          if (reply.type === 'load_failed') pending?.reject(new Error(reply.message));
          else pending?.resolve(reply.type === 'loaded' && reply.batchable);
        } else {
          this.settle(slot, reply);
        }
      });
      worker.on('error', (error) => {
        this.options.logger.error({ err: error }, 'inference worker failed');
        if (!ready) rejectReady(error);
      });
      worker.on('exit', (code) => {
        const index = this.slots.indexOf(slot);
        if (index >= 0) this.slots.splice(index, 1);
        for (const job of slot.jobs.splice(0)) job.reject(new ProtocolError('internal', `inference worker exited (code ${code})`));
        slot.wide = false;
        for (const resolve of slot.idleWaiters.splice(0)) resolve();
        for (const pending of slot.requests.values()) pending.reject(new Error(`inference worker exited (code ${code})`));
        slot.requests.clear();
        if (!ready) rejectReady(new Error(`inference worker exited during start (code ${code})`));
        // A crashed worker is replaced so one bad frame cannot take the gateway's inference down for good.
        if (ready && !this.closed) {
          this.dispatch(); // the others may take over what this one held up
          this.options.logger.warn({ code }, 'restarting inference worker');
          this.spawnSlot(canRunWide).catch((error: unknown) => this.options.logger.error({ err: error }, 'restart failed'));
        }
      });
    });
  }

  private settle(slot: Slot, reply: Extract<WorkerReply, { jobId: number }>): void {
    const index = slot.jobs.findIndex((job) => job.jobId === reply.jobId);
    const job = index >= 0 ? slot.jobs.splice(index, 1)[0] : undefined;
    if (slot.jobs.length === 0) {
      slot.wide = false;
      for (const resolve of slot.idleWaiters.splice(0)) resolve();
    }
    if (!job) {
      this.options.logger.error({ jobId: reply.jobId }, 'inference reply for an unknown job');
    } else if (reply.type === 'failed') {
      // The client's fault (an image no decoder takes) is the client's to read; the gateway's is logged, not sent.
      job.reject(
        reply.code === 'internal'
          ? new Error(`inference failed: ${reply.message}`)
          : new ProtocolError(reply.code, reply.message, undefined, reply.retryAfterMs),
      );
    } else {
      job.resolve({ ...reply.result, queueMs: job.dispatchedAt - job.enqueuedAt, batch: reply.batch });
    }
    if (slot.jobs.length === 0) this.dispatch();
  }
}

type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;

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
