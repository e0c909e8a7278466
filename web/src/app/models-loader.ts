/**
 * The gateway's model list (GET /api/models), kept for the model picker and the "auto" frame size, and
 * kept current while the page is open: models are added to, replaced in and removed from the gateway's
 * models directory while it runs, so a loaded list is asked for again every MODELS_REFRESH_MS while the
 * page is visible (and at once when it is shown again, or when the picker asks, `refresh`). The answer is
 * a few kilobytes. A failed load is retried every MODELS_RETRY_MS; the socket's reconnect also triggers a
 * load. A list once loaded is kept through later failures, and an answer equal to the list held changes
 * nothing (no `changed`, the same object), so what depends on the list only reacts to real changes.
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
/** How often a loaded list is asked for again while the page is visible. */
export const MODELS_REFRESH_MS = 3000;

/** Whether anyone is looking at the page: the document, or nothing outside a page (always visible then). */
export type PageVisibility = Pick<EventTarget, 'addEventListener' | 'removeEventListener'> & {
  readonly visibilityState: DocumentVisibilityState;
};

export interface ModelsLoaderOptions {
  fetch: (signal: AbortSignal) => Promise<ModelsResponse>;
  clock: Pick<Clock, 'setTimeout' | 'clearTimeout'>;
  /** Default MODELS_REFRESH_MS. */
  refreshMs?: number;
  /** Default: the page's document. */
  visibility?: PageVisibility;
}

export class ModelsLoader {
  /** A load started (from no list) or the state changed: a new list, an error, or the error gone. */
  readonly changed = new Signal<ModelsState>();
  private current: ModelsState = { status: 'loading' };
  private running = false;
  private timer: TimerHandle | undefined;
  private abort: AbortController | undefined;
  private readonly refreshMs: number;
  private readonly visibility: PageVisibility | undefined;

  constructor(private readonly options: ModelsLoaderOptions) {
    this.refreshMs = options.refreshMs ?? MODELS_REFRESH_MS;
    this.visibility = options.visibility ?? (typeof document === 'undefined' ? undefined : document);
  }

  get state(): ModelsState {
    return this.current;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.visibility?.addEventListener('visibilitychange', this.onVisibility);
    this.load();
  }

  /** Aborts the request under way and stops refreshing and retrying; the list loaded so far is kept. */
  stop(): void {
    this.running = false;
    this.visibility?.removeEventListener('visibilitychange', this.onVisibility);
    this.options.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.abort?.abort();
    this.abort = undefined;
  }

  /** Loads now unless a request is already under way (its answer is as fresh): for the picker getting focus. */
  refresh(): void {
    if (this.abort) return;
    this.load();
  }

  /** Loads now, replacing a request under way or a timer that is waiting: only the latest answer counts. */
  load(): void {
    const { clock } = this.options;
    clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.abort?.abort();
    const abort = new AbortController();
    this.abort = abort;
    if (this.current.status !== 'ready') {
      this.current = { ...this.current, status: 'loading' };
      this.changed.emit(this.current);
    }
    this.options.fetch(abort.signal).then(
      (response) => {
        if (abort.signal.aborted) return;
        this.abort = undefined;
        this.received(response);
        this.schedule(this.refreshMs);
      },
      (error: unknown) => {
        if (abort.signal.aborted) return;
        this.abort = undefined;
        this.current = {
          ...this.current,
          status: this.current.response ? 'ready' : 'error',
          error: error instanceof Error ? error.message : String(error),
        };
        this.changed.emit(this.current);
        this.schedule(MODELS_RETRY_MS);
      },
    );
  }

  private received(response: ModelsResponse): void {
    const { current } = this;
    const unchanged = current.status === 'ready' && current.error === undefined && sameList(current.response, response);
    if (unchanged) return;
    this.current = { status: 'ready', response };
    this.changed.emit(this.current);
  }

  /** The next load; a hidden page skips it, and is loaded again when it is shown (onVisibility). */
  private schedule(ms: number): void {
    if (!this.running) return;
    this.timer = this.options.clock.setTimeout(() => {
      this.timer = undefined;
      if (this.visible()) this.load();
    }, ms);
  }

  private visible(): boolean {
    return (this.visibility?.visibilityState ?? 'visible') === 'visible';
  }

  private readonly onVisibility = (): void => {
    // Shown again: the list may be minutes old; a load also restarts the refresh a hidden page let lapse.
    if (this.running && this.visible()) this.refresh();
  };
}

/** The answer is small and comes from one serializer, so its JSON text is a fair equality. */
function sameList(a: ModelsResponse | undefined, b: ModelsResponse): boolean {
  return a !== undefined && JSON.stringify(a) === JSON.stringify(b);
}
