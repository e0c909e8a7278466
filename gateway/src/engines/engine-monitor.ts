/**
 * The remote inference engine as a dependency that fails. One circuit breaker per remote model, fed by
 * the frames' outcomes and by a readiness probe (`GET /v2/models/{name}/ready`) every `probeMs`:
 *
 * - closed: frames go to the engine. Failures in a row (frames answered `unavailable`, or probes) open it.
 * - open: frames are refused on receipt, `unavailable` with `retryAfterMs`, instead of each waiting out its
 *   timeout against an engine that is gone; /readyz turns 503 so a load balancer sends clients elsewhere.
 * - after the cool-down the next probe is the half-open trial: the model ready there closes the circuit,
 *   and the gateway recovers by itself.
 *
 * So readiness follows the engine within `failureThreshold` probe intervals even with no traffic, and a
 * frame never hangs: the request itself is bounded by the client's timeout.
 */
import { ProtocolError } from '@sightline/shared/validation';
import type { Logger } from '../logger.ts';
import type { ModelSpec, RemoteEngine } from '../models/manifest.ts';
import { CircuitBreaker } from './circuit-breaker.ts';
import { KserveClient } from './kserve-client.ts';

export interface EngineMonitorOptions {
  /** How often each remote model's readiness is asked. */
  probeMs: number;
  /** Bound on one readiness request. */
  timeoutMs: number;
  /** Failures in a row that open a model's circuit. */
  failureThreshold: number;
  logger: Logger;
  /** Told whenever a model's engine comes or goes (metrics). */
  onChange?: (model: string, up: boolean) => void;
  now?: () => number;
}

interface Watched {
  engine: RemoteEngine;
  client: KserveClient;
  breaker: CircuitBreaker;
  /** The latest failure's words, for clients, /readyz and the log. */
  reason: string;
}

export class EngineMonitor {
  private readonly watched = new Map<string, Watched>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private probing = false;

  constructor(private readonly options: EngineMonitorOptions) {}

  /** Follows the models served remotely among `specs` (called whenever what is served changes). */
  follow(specs: readonly ModelSpec[]): void {
    const remote = new Map(specs.filter((s) => s.engine).map((s) => [s.manifest.name, s.engine!]));
    for (const name of [...this.watched.keys()]) {
      const engine = remote.get(name);
      if (!engine || engine.url !== this.watched.get(name)!.engine.url || engine.model !== this.watched.get(name)!.engine.model)
        this.watched.delete(name);
    }
    for (const [name, engine] of remote) if (!this.watched.has(name)) this.watched.set(name, this.watch(name, engine));
  }

  start(): void {
    this.timer ??= setInterval(() => void this.probe(), this.options.probeMs);
    this.timer.unref();
    void this.probe();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Throws `unavailable` (with when to retry) for a remote model whose engine is not answering. */
  check(model: string): void {
    const watched = this.watched.get(model);
    if (!watched || watched.breaker.state === 'closed') return;
    const retryAfterMs = Math.max(this.options.probeMs, Math.ceil(watched.breaker.retryInMs()));
    throw new ProtocolError(
      'unavailable',
      `the inference engine for model "${model}" is unavailable (${watched.reason}); retry later`,
      undefined,
      retryAfterMs,
    );
  }

  /** A frame of `model` was answered by its engine. */
  succeeded(model: string): void {
    this.watched.get(model)?.breaker.succeeded('call');
  }

  /** A frame of `model` failed because its engine did not answer. */
  failed(model: string, reason: string): void {
    const watched = this.watched.get(model);
    if (!watched) return;
    watched.reason = reason;
    watched.breaker.failed('call');
  }

  /** The remote models that cannot be served now, with the reason (empty when every engine answers). */
  get problems(): { model: string; reason: string }[] {
    return [...this.watched].filter(([, w]) => w.breaker.state !== 'closed').map(([model, w]) => ({ model, reason: w.reason }));
  }

  private watch(name: string, engine: RemoteEngine): Watched {
    const { logger, onChange, now } = this.options;
    const watched: Watched = {
      engine,
      client: new KserveClient({ url: engine.url, timeoutMs: this.options.timeoutMs }),
      reason: 'not asked yet',
      breaker: new CircuitBreaker({
        failureThreshold: this.options.failureThreshold,
        coolDownMs: this.options.probeMs,
        ...(now ? { now } : {}),
        onStateChange: (state, previous) => {
          if (state === 'open' && previous === 'closed') {
            logger.warn({ model: name, engine: engine.url, reason: watched.reason }, 'inference engine unavailable');
            onChange?.(name, false);
          } else if (state === 'closed') {
            logger.info({ model: name, engine: engine.url }, 'inference engine available again');
            onChange?.(name, true);
          }
        },
      }),
    };
    return watched;
  }

  /** One round of readiness questions, at most one round at a time. */
  private async probe(): Promise<void> {
    if (this.probing) return;
    this.probing = true;
    try {
      await Promise.all([...this.watched].map(([name, watched]) => this.probeOne(name, watched)));
    } finally {
      this.probing = false;
    }
  }

  private async probeOne(name: string, watched: Watched): Promise<void> {
    const permit = watched.breaker.state === 'closed' ? 'call' : watched.breaker.tryAcquire();
    if (!permit) return;
    let ready: boolean;
    try {
      ready = await watched.client.modelReady(watched.engine.model);
      if (!ready) watched.reason = `model "${watched.engine.model}" is not ready at ${watched.engine.url}`;
    } catch (error) {
      ready = false;
      watched.reason = error instanceof Error ? error.message : String(error);
    }
    if (ready) watched.breaker.succeeded(permit);
    else watched.breaker.failed(permit);
  }
}
