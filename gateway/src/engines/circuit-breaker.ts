/**
 * A circuit breaker for a dependency that fails (a remote inference engine): after `failureThreshold`
 * failures in a row it opens, and calls are refused at once for `coolDownMs` instead of each waiting out its
 * own timeout against an engine that is gone; then it lets one probe through (half-open). The probe's
 * success closes it, its failure opens it for another cool-down. Any answer that is not a failure (the
 * engine refusing a malformed request, say) counts as a success: the engine is there.
 *
 * Time comes from `now`, so tests drive it with a clock of their own.
 */

export type CircuitState = 'closed' | 'open' | 'half-open';

export interface CircuitBreakerOptions {
  /** Consecutive failures that open the circuit (at least 1). */
  failureThreshold: number;
  /** How long an open circuit refuses calls before it lets one probe through. */
  coolDownMs: number;
  /** Milliseconds, monotonic; default performance.now. */
  now?: () => number;
  /** Which errors are the dependency's failures; default: every error. */
  isFailure?: (error: unknown) => boolean;
  /** Told of every change of state (logs, metrics, readiness). */
  onStateChange?: (state: CircuitState, previous: CircuitState) => void;
}

/** What a call was let through as: an ordinary call of a closed circuit, or the one probe of a half-open one. */
export type CircuitPermit = 'call' | 'probe';

export class CircuitOpenError extends Error {
  override readonly name = 'CircuitOpenError';
  constructor(
    message: string,
    /** When the next probe may go (0: a probe is already out). */
    readonly retryInMs: number,
  ) {
    super(message);
  }
}

export class CircuitBreaker {
  private failures = 0;
  /** When the circuit last opened; undefined while closed. */
  private openedAt: number | undefined;
  private probeOut = false;
  private readonly now: () => number;

  constructor(private readonly options: CircuitBreakerOptions) {
    if (!(options.failureThreshold >= 1)) throw new RangeError(`failureThreshold must be at least 1, got ${options.failureThreshold}`);
    if (!(options.coolDownMs >= 0)) throw new RangeError(`coolDownMs must not be negative, got ${options.coolDownMs}`);
    this.now = options.now ?? (() => performance.now());
  }

  get state(): CircuitState {
    if (this.openedAt === undefined) return 'closed';
    return this.probeOut || this.now() - this.openedAt >= this.options.coolDownMs ? 'half-open' : 'open';
  }

  /** Failures in a row so far (reset by any success). */
  get consecutiveFailures(): number {
    return this.failures;
  }

  /** Milliseconds until an open circuit lets a probe through; 0 when a call could go now or a probe is out. */
  retryInMs(): number {
    if (this.openedAt === undefined || this.probeOut) return 0;
    return Math.max(0, this.openedAt + this.options.coolDownMs - this.now());
  }

  /** Whether a call may go ahead now, and as what; undefined: refused (open, or its probe already out). */
  tryAcquire(): CircuitPermit | undefined {
    const state = this.state;
    if (state === 'closed') return 'call';
    if (state === 'open' || this.probeOut) return undefined;
    this.probeOut = true;
    this.options.onStateChange?.('half-open', 'open');
    return 'probe';
  }

  /** The call let through as `permit` succeeded: the dependency answers, the circuit closes. */
  succeeded(permit: CircuitPermit): void {
    const previous = this.state;
    if (permit === 'probe') this.probeOut = false;
    this.failures = 0;
    this.openedAt = undefined;
    if (previous !== 'closed') this.options.onStateChange?.('closed', previous);
  }

  /** The call let through as `permit` failed. */
  failed(permit: CircuitPermit): void {
    if (permit === 'probe') {
      this.probeOut = false;
      this.failures++;
      this.openedAt = this.now();
      this.options.onStateChange?.('open', 'half-open');
      return;
    }
    // A call that started before the circuit opened and fails after it adds nothing: it is open already.
    if (this.openedAt !== undefined) return;
    this.failures++;
    if (this.failures >= this.options.failureThreshold) {
      this.openedAt = this.now();
      this.options.onStateChange?.('open', 'closed');
    }
  }

  /** Runs `work` if the circuit lets it, and records how it went; refused calls throw CircuitOpenError at once. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    const permit = this.tryAcquire();
    if (!permit) {
      const retryInMs = this.retryInMs();
      throw new CircuitOpenError(
        retryInMs > 0
          ? `circuit open after ${this.failures} failures in a row; next try in ${Math.ceil(retryInMs)} ms`
          : `circuit half-open: a probe is under way`,
        retryInMs,
      );
    }
    let result: T;
    try {
      result = await work();
    } catch (error) {
      if (this.options.isFailure?.(error) ?? true) this.failed(permit);
      else this.succeeded(permit);
      throw error;
    }
    this.succeeded(permit);
    return result;
  }
}
