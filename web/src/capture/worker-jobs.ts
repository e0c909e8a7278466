/**
 * Pictures handed to an encoding worker, each request answered by its id: the JPEG encoder (frame-encoder.ts)
 * and the video encoder (video/video-stream-encoder.ts) both go through it. A request not answered within the
 * timeout is given up and the worker replaced: a wedged worker (GPU process hiccup, a VideoFrame that never
 * decodes) would otherwise hold the one-encode-at-a-time stream forever. The next request starts a fresh one.
 */

/** The part of Worker the jobs use (so tests can hand in a fake). */
export interface JobWorker<Request, Response> {
  onmessage: ((event: MessageEvent<Response>) => void) | null;
  onerror: ((event: ErrorEvent) => void) | null;
  postMessage(message: Request, transfer: Transferable[]): void;
  terminate(): void;
}

/** A request carrying a picture: transferred to the worker, closed here when it cannot be posted. */
export interface PictureRequest {
  id: number;
  source: VideoFrame | ImageBitmap;
}

export interface WorkerJobsOptions<Request, Response> {
  createWorker: () => JobWorker<Request, Response>;
  timeoutMs: number;
  /** The worker as errors name it: "the encoder worker". */
  name: string;
  /** The worker failed (to start, or later): it is gone and its jobs failed with `reason`. */
  onFailure?: (reason: string) => void;
}

interface Job<Response> {
  resolve: (response: Response) => void;
  reject: (error: Error) => void;
}

export class WorkerJobs<Request extends PictureRequest, Response extends { id: number }> {
  private worker: JobWorker<Request, Response> | undefined;
  private nextId = 1;
  private readonly jobs = new Map<number, Job<Response>>();

  constructor(private readonly options: WorkerJobsOptions<Request, Response>) {}

  /** The id of the next request. */
  newId(): number {
    return this.nextId++;
  }

  /** Posts `request`, its picture transferred, and resolves with the worker's answer to it. */
  run(request: Request): Promise<Response> {
    const { timeoutMs, name } = this.options;
    return new Promise<Response>((resolve, reject) => {
      let worker: JobWorker<Request, Response>;
      const timer = setTimeout(() => {
        if (!this.jobs.delete(request.id)) return;
        reject(new Error(`${name} did not answer within ${timeoutMs / 1000} s; restarting it`));
        if (this.worker === worker) this.stop(`${name} was restarted`);
      }, timeoutMs);
      this.jobs.set(request.id, {
        resolve: (answer) => {
          clearTimeout(timer);
          resolve(answer);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      try {
        worker = this.ensureWorker();
        worker.postMessage(request, [request.source]);
      } catch (error) {
        this.jobs.delete(request.id);
        clearTimeout(timer);
        request.source.close();
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  /** Ends the worker and fails the jobs it still holds with `reason`; the next request starts a new one. */
  stop(reason: string): void {
    this.worker?.terminate();
    this.worker = undefined;
    for (const job of this.jobs.values()) job.reject(new Error(reason));
    this.jobs.clear();
  }

  private ensureWorker(): JobWorker<Request, Response> {
    if (this.worker) return this.worker;
    const worker = this.options.createWorker();
    worker.onmessage = (event: MessageEvent<Response>) => {
      const job = this.jobs.get(event.data.id);
      if (!job) return;
      this.jobs.delete(event.data.id);
      job.resolve(event.data);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      if (this.worker !== worker) return;
      const reason = event.message || `${this.options.name} failed`;
      this.stop(reason);
      this.options.onFailure?.(reason);
    };
    this.worker = worker;
    return worker;
  }
}
