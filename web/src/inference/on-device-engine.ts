/**
 * The page's side of on-device inference, and the "This device" frame route: owns the inference worker,
 * loads the selected model into it (again when the model or the thread count changes), runs one frame at
 * a time and settles each (result, error, or lost after a timeout, when the worker is replaced). Pure
 * logic around a worker-shaped object, so it is unit-tested with a fake.
 */
import type { ModelInfo } from '@sightline/shared/protocol';
import { Signal } from '../events/signal.ts';
import type { FrameOutcome, SentFrame } from '../frame-routes/frame-outcome.ts';
import type { FrameRequest, RoutePort } from '../frame-routes/route-port.ts';
import type { Clock, TimerHandle } from '../time/clock.ts';
import { onDeviceSpec, type OnDeviceSpec } from './on-device-model.ts';
import { wasmThreads, type ThreadEnvironment, type ThreadsSetting } from './threads.ts';
import type { InferenceBackend, ModelFileInfo, WorkerReply, WorkerRequest } from './worker-protocol.ts';

export type OnDeviceStatus = 'off' | 'unavailable' | 'loading' | 'ready' | 'error';

export interface OnDeviceState {
  status: OnDeviceStatus;
  /** The model loaded, or being loaded. */
  model?: string;
  /** Why it is unavailable or failed, in words. */
  reason?: string;
  /** Download progress while loading. */
  progress?: { loadedBytes: number; totalBytes: number };
  backend?: InferenceBackend;
  threads?: number;
  crossOriginIsolated?: boolean;
  webGpuNote?: string;
  file?: ModelFileInfo;
  /** From asking for the model to its first frame possible: file, checksum, runtime start, session, warm-up. */
  loadMs?: number;
  sessionMs?: number;
  warmupMs?: number;
}

/** A state change: `previous` tells a status change (loaded, failed) from progress within one. */
export interface OnDeviceChange {
  state: OnDeviceState;
  previous: OnDeviceState;
}

/** The part of Worker the engine uses. */
export interface InferenceWorkerLike {
  onmessage: ((event: MessageEvent<WorkerReply>) => void) | null;
  onerror: ((event: ErrorEvent) => void) | null;
  postMessage(message: WorkerRequest, transfer?: Transferable[]): void;
  terminate(): void;
}

export interface OnDeviceEngineOptions {
  createWorker: () => InferenceWorkerLike;
  clock: Pick<Clock, 'now' | 'setTimeout' | 'clearTimeout'>;
  /** Message ids, shared with the gateway's frames and pings so every sample has its own. */
  nextId: () => number;
  environment: () => ThreadEnvironment & { allowWebGpu: boolean };
  /** A frame unanswered this long is lost and the worker replaced. */
  timeoutMs: number;
}

/** What the engine should have loaded: a model and a thread setting. */
export interface DeviceTarget {
  model: ModelInfo;
  threads: ThreadsSetting;
}

export function createInferenceWorker(): InferenceWorkerLike {
  return new Worker(new URL('./inference.worker.ts', import.meta.url), { type: 'module', name: 'inference' });
}

export class OnDeviceEngine implements RoutePort {
  readonly id = 'device';
  /** The state changed (load progress included). */
  readonly changed = new Signal<OnDeviceChange>();
  /** A frame was answered, failed or given up. */
  readonly settled = new Signal<FrameOutcome>();
  private worker: InferenceWorkerLike | undefined;
  /** Thread count the current worker was started with (fixed for its life). */
  private workerThreads = 0;
  private current: OnDeviceState = { status: 'off' };
  private spec: OnDeviceSpec | undefined;
  /** Model, file digest and thread count of the last load asked for. */
  private attempt: string | undefined;
  private loadStarted = 0;
  private pending: { frame: SentFrame; timer: TimerHandle } | undefined;

  constructor(private readonly options: OnDeviceEngineOptions) {}

  get state(): OnDeviceState {
    return this.current;
  }

  /** A model is loaded: frames can run. */
  get available(): boolean {
    return this.current.status === 'ready';
  }

  /** A frame is being computed (one at most). */
  get inFlight(): number {
    return this.pending ? 1 : 0;
  }

  canSend(): boolean {
    return this.available && !this.pending && this.worker !== undefined && this.spec !== undefined;
  }

  /**
   * Loads what `target` names, unless it is loaded or loading already. A new thread count needs a new
   * worker (the WASM runtime reads it once). Undefined leaves whatever is loaded in place, so switching
   * back to this device is instant.
   */
  configure(target: DeviceTarget | undefined): void {
    if (!target) return;
    const support = onDeviceSpec(target.model);
    if (!support.ok) {
      this.spec = undefined;
      this.attempt = undefined;
      this.setState({ status: 'unavailable', model: target.model.name, reason: support.reason });
      return;
    }
    const environment = this.options.environment();
    const threads = wasmThreads(target.threads, environment);
    const attempt = `${support.spec.name}/${support.spec.file.sha256}/${threads}`;
    // Loading, loaded, or failed (only Retry tries that again, not every settings change).
    if (attempt === this.attempt && this.current.status !== 'unavailable' && this.current.status !== 'off') return;
    this.attempt = attempt;
    // A frame in flight in a worker that stays still comes back (the worker runs it before the load).
    if (this.worker && this.workerThreads !== threads) {
      this.abandonPending('the worker was restarted for another thread count');
      this.dropWorker();
    }
    this.spec = support.spec;
    const worker = this.ensureWorker(threads);
    this.loadStarted = this.options.clock.now();
    this.setState({ status: 'loading', model: support.spec.name, threads });
    worker.postMessage({ type: 'load', model: support.spec, threads, allowWebGpu: environment.allowWebGpu });
  }

  /** Loads the model again after an error, in a fresh worker. */
  retry(target: DeviceTarget | undefined): void {
    if (!target) return;
    this.attempt = undefined;
    this.abandonPending('the worker was restarted');
    this.dropWorker();
    this.configure(target);
  }

  /** Hands one frame to the worker (the loaded model runs it); undefined when no model is ready or a frame is already running. */
  send(image: Uint8Array, request: FrameRequest): SentFrame | undefined {
    if (!this.canSend() || !this.worker || !this.spec) return undefined;
    const { threshold } = request;
    const id = this.options.nextId();
    const frame: SentFrame = {
      id,
      path: 'device',
      model: this.spec.name,
      threshold,
      sentAt: this.options.clock.now(),
      skippedBefore: request.skippedBefore,
      capturedAt: request.capturedAt,
    };
    // A copy the worker can take over: the stream loop keeps a still image's bytes to send again.
    const copy = image.slice().buffer;
    const timer = this.options.clock.setTimeout(() => this.timedOut(id), this.options.timeoutMs);
    this.pending = { frame, timer };
    this.worker.postMessage({ type: 'detect', id, image: copy, threshold }, [copy]);
    return frame;
  }

  /** Ends the worker; a frame in flight is lost. */
  stop(): void {
    this.abandonPending('stopped');
    this.dropWorker();
    this.spec = undefined;
    this.attempt = undefined;
    if (this.current.status !== 'off') this.setState({ status: 'off' });
  }

  private ensureWorker(threads: number): InferenceWorkerLike {
    if (this.worker) return this.worker;
    const worker = this.options.createWorker();
    worker.onmessage = (event) => this.handle(worker, event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      if (worker !== this.worker) return;
      this.fail(`the inference worker failed: ${event.message || 'it could not start'}`);
    };
    this.worker = worker;
    this.workerThreads = threads;
    return worker;
  }

  private dropWorker(): void {
    this.worker?.terminate();
    this.worker = undefined;
    this.workerThreads = 0;
  }

  private handle(worker: InferenceWorkerLike, reply: WorkerReply): void {
    if (worker !== this.worker) return;
    const model = this.spec?.name;
    switch (reply.type) {
      case 'progress':
        if (reply.model !== model || this.current.status !== 'loading') return;
        this.setState({ ...this.current, progress: { loadedBytes: reply.loadedBytes, totalBytes: reply.totalBytes } });
        return;
      case 'loaded':
        if (reply.model !== model) return;
        this.setState({
          status: 'ready',
          model: reply.model,
          backend: reply.backend,
          threads: reply.threads,
          crossOriginIsolated: reply.crossOriginIsolated,
          ...(reply.webGpuNote ? { webGpuNote: reply.webGpuNote } : {}),
          file: reply.file,
          loadMs: this.options.clock.now() - this.loadStarted,
          sessionMs: reply.sessionMs,
          warmupMs: reply.warmupMs,
        });
        return;
      case 'load_failed':
        if (reply.model !== model) return;
        this.fail(`could not load ${reply.model} on this device: ${reply.message}`);
        return;
      case 'result':
      case 'failed': {
        const pending = this.pending;
        if (!pending || pending.frame.id !== reply.id) return;
        this.options.clock.clearTimeout(pending.timer);
        this.pending = undefined;
        const { frame } = pending;
        const answeredAt = this.options.clock.now();
        this.settled.emit(
          reply.type === 'result'
            ? {
                frame,
                kind: 'ok',
                answeredAt,
                result: {
                  model: reply.model,
                  width: reply.width,
                  height: reply.height,
                  detections: reply.detections,
                  stages: reply.timings,
                },
              }
            : {
                frame,
                kind: 'error',
                answeredAt,
                reason: 'on_device_error',
                message: reply.message,
                // The dashboard's own problem, not the gateway's: one entry per kind, repeats counted.
                notice: { code: 'on_device_error', message: `On-device inference failed: ${reply.message}` },
              },
        );
      }
    }
  }

  private fail(reason: string): void {
    this.abandonPending(reason);
    this.dropWorker();
    this.setState({ ...this.current, status: 'error', reason, progress: undefined });
  }

  private timedOut(id: number): void {
    if (this.pending?.frame.id !== id) return;
    const { frame } = this.pending;
    this.pending = undefined;
    this.settled.emit(lost(frame, this.options.clock.now(), 'no result in time'));
    // A wedged worker: start over with a fresh one.
    const spec = this.spec;
    const threads = this.workerThreads;
    this.dropWorker();
    if (spec) {
      const worker = this.ensureWorker(threads);
      this.loadStarted = this.options.clock.now();
      this.setState({ status: 'loading', model: spec.name, threads });
      worker.postMessage({ type: 'load', model: spec, threads, allowWebGpu: this.options.environment().allowWebGpu });
    }
  }

  private abandonPending(reason: string): void {
    const pending = this.pending;
    if (!pending) return;
    this.options.clock.clearTimeout(pending.timer);
    this.pending = undefined;
    this.settled.emit(lost(pending.frame, this.options.clock.now(), reason));
  }

  private setState(state: OnDeviceState): void {
    const previous = this.current;
    this.current = state;
    this.changed.emit({ state, previous });
  }
}

function lost(frame: SentFrame, at: number, why: string): FrameOutcome {
  return {
    frame,
    kind: 'lost',
    answeredAt: at,
    reason: 'no_answer',
    message: why,
    notice: { code: 'on_device_lost', message: `A frame got no result on this device (${why}): counted as lost.` },
  };
}
