/**
 * The one failure type of the KServe v2 codec and client, so a caller tells them apart by kind rather than
 * by message: the codec throws `usage` (tensors that cannot be encoded as given) and `protocol` (a message
 * that does not decode); the client adds the transport's `http`, `timeout`, `connection` and `aborted`.
 */

/** What went wrong, for callers that react differently: a circuit breaker counts only the engine's failures. */
export type KserveErrorKind = 'http' | 'timeout' | 'connection' | 'protocol' | 'aborted' | 'usage';

export class KserveError extends Error {
  override readonly name = 'KserveError';
  constructor(
    readonly kind: KserveErrorKind,
    message: string,
    readonly details: { status?: number; engineMessage?: string; cause?: unknown } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
  }

  /** The HTTP status the engine answered with (kind `http`). */
  get status(): number | undefined {
    return this.details.status;
  }
}

/**
 * Whether an error says the engine is unwell (unreachable, too slow, failing, speaking nonsense) rather than
 * the request being wrong (HTTP 4xx) or the caller giving up: what a circuit breaker should count.
 */
export function isEngineFailure(error: unknown): boolean {
  if (!(error instanceof KserveError)) return false;
  if (error.kind === 'http') return (error.status ?? 500) >= 500;
  return error.kind === 'timeout' || error.kind === 'connection' || error.kind === 'protocol';
}
