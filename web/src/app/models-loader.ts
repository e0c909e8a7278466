/**
 * The gateway's model list (GET /api/models), kept for the model picker and the "auto" frame size. A
 * failed load is retried every MODELS_RETRY_MS; the socket's reconnect also triggers a reload, the retry
 * covers a gateway that is up but not ready. A list once loaded is kept through later failures.
 */
import type { ModelsResponse } from '@sightline/shared/protocol';
import { Signal } from '../events/signal.ts';
import type { Clock, TimerHandle } from '../time/clock.ts';

export type ModelsStatus = 'loading' | 'ready' | 'error';

export interface ModelsState {
  status: ModelsStatus;
  response?: ModelsResponse;
  error?: string;
}

export const MODELS_RETRY_MS = 5000;

export interface ModelsLoaderOptions {
  fetch: (signal: AbortSignal) => Promise<ModelsResponse>;
  clock: Pick<Clock, 'setTimeout' | 'clearTimeout'>;
}

export class ModelsLoader {
  /** A load started or ended. */
  readonly changed = new Signal<ModelsState>();
  private current: ModelsState = { status: 'loading' };
  private running = false;
  private retryTimer: TimerHandle | undefined;
  private abort: AbortController | undefined;

  constructor(private readonly options: ModelsLoaderOptions) {}

  get state(): ModelsState {
    return this.current;
  }

  start(): void {
    this.running = true;
    this.load();
  }

  /** Aborts the request under way and stops retrying; the list loaded so far is kept. */
  stop(): void {
    this.running = false;
    this.options.clock.clearTimeout(this.retryTimer);
    this.abort?.abort();
  }

  /** Loads now, replacing a request under way or a retry that is waiting: only the latest answer counts. */
  load(): void {
    const { clock } = this.options;
    clock.clearTimeout(this.retryTimer);
    this.abort?.abort();
    const abort = new AbortController();
    this.abort = abort;
    if (this.current.status !== 'ready') this.current = { ...this.current, status: 'loading' };
    this.changed.emit(this.current);
    this.options.fetch(abort.signal).then(
      (response) => {
        if (abort.signal.aborted) return;
        this.current = { status: 'ready', response };
        this.changed.emit(this.current);
      },
      (error: unknown) => {
        if (abort.signal.aborted) return;
        this.current = {
          ...this.current,
          status: this.current.response ? 'ready' : 'error',
          error: error instanceof Error ? error.message : String(error),
        };
        this.changed.emit(this.current);
        if (this.running) this.retryTimer = clock.setTimeout(() => this.load(), MODELS_RETRY_MS);
      },
    );
  }
}
