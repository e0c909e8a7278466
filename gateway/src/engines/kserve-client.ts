/**
 * A thin client of the Open Inference Protocol (KServe v2) over HTTP, to run a model on a serving engine
 * (Triton, KServe, OpenVINO Model Server, MLServer): server health, model readiness and metadata, and
 * inference with the binary tensor data extension both ways. The transport only: fetch, a timeout on
 * every request, failures typed; the messages are kserve-codec.ts's, the tensors kserve-tensors.ts's.
 *
 * Hand-written because no Node client of the protocol exists on npm, and kept lean because it is on the frame
 * path: one copy of the tensors into the request body, outputs read as views of the response where aligned.
 * It runs on Node's own fetch, whose global dispatcher already keeps connections alive: measured on loopback
 * with the shipped SSD (1 MB in, 0.7 MB out), a fresh connection per request cost ~3 ms more per frame, so no
 * agent of its own. Every request is bounded by a timeout, and every failure is a KserveError that says which
 * engine, which request and what went wrong.
 */
import type { InputTensor, ModelRunner, OutputTensor } from '@sightline/shared/model';
import {
  decodeErrorMessage,
  decodeInferResponse,
  decodeModelMetadata,
  encodeInferRequest,
  INFERENCE_HEADER_CONTENT_LENGTH,
  messageHeaders,
  readHeaderLength,
  type InferResponse,
  type ModelMetadata,
} from './kserve-codec.ts';
import { KserveError } from './kserve-error.ts';
import { fromInputTensor, toOutputTensor, type KserveTensor } from './kserve-tensors.ts';

// The client's failures, for its callers.
export { isEngineFailure, KserveError, type KserveErrorKind } from './kserve-error.ts';

export const DEFAULT_KSERVE_TIMEOUT_MS = 5000;

export interface KserveClientOptions {
  /** The engine's HTTP endpoint: `http://127.0.0.1:8000`. */
  url: string;
  /** Bound on each request, from sending it to the answer's last byte, unless a call says otherwise. */
  timeoutMs?: number;
  /** Sent with every request (an engine behind a proxy that asks for a token). */
  headers?: Readonly<Record<string, string>>;
}

export interface RequestOptions {
  timeoutMs?: number;
  /** The caller giving up (a frame superseded, a drain). */
  signal?: AbortSignal;
}

export interface ModelRequestOptions extends RequestOptions {
  /** A model version; absent: the engine's choice (its latest). */
  version?: string;
}

export interface InferOptions extends ModelRequestOptions {
  /** Only these outputs; absent: all of them. */
  outputs?: readonly string[];
  id?: string;
}

interface Answer {
  status: number;
  headers: Headers;
  body: Uint8Array;
}

interface Call extends RequestOptions {
  method: 'GET' | 'POST';
  path: string;
  body?: Uint8Array;
  headers?: Record<string, string>;
}

export class KserveClient {
  readonly url: string;
  private readonly timeoutMs: number;
  private readonly headers: Readonly<Record<string, string>>;

  constructor(options: KserveClientOptions) {
    this.url = options.url.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? DEFAULT_KSERVE_TIMEOUT_MS;
    this.headers = options.headers ?? {};
  }

  /** GET /v2/health/live: the server answers 200. Throws KserveError when it cannot be reached. */
  async serverLive(options: RequestOptions = {}): Promise<boolean> {
    return (await this.call({ ...options, method: 'GET', path: '/v2/health/live' })).status === 200;
  }

  /** GET /v2/health/ready: the server answers 200 (Triton: and every model it was told to load is ready). */
  async serverReady(options: RequestOptions = {}): Promise<boolean> {
    return (await this.call({ ...options, method: 'GET', path: '/v2/health/ready' })).status === 200;
  }

  /** GET /v2/models/{name}/ready: 200 means ready; any other answer (unknown model, loading) means not. */
  async modelReady(model: string, options: ModelRequestOptions = {}): Promise<boolean> {
    return (await this.call({ ...options, method: 'GET', path: `${modelPath(model, options.version)}/ready` })).status === 200;
  }

  /** GET /v2/models/{name}: inputs and outputs with their datatypes and shapes (-1 where variable). */
  async modelMetadata(model: string, options: ModelRequestOptions = {}): Promise<ModelMetadata> {
    const call: Call = { ...options, method: 'GET', path: modelPath(model, options.version) };
    const answer = this.expectOk(call, await this.call(call));
    try {
      return decodeModelMetadata(answer.body);
    } catch (error) {
      throw this.protocolError(call, `answered with ${(error as Error).message}`, error);
    }
  }

  /** POST /v2/models/{name}/infer with protocol tensors, binary both ways. */
  async inferTensors(model: string, inputs: readonly KserveTensor[], options: InferOptions = {}): Promise<InferResponse> {
    const request = encodeInferRequest(inputs, { outputs: options.outputs, id: options.id });
    const call: Call = {
      ...options,
      method: 'POST',
      path: `${modelPath(model, options.version)}/infer`,
      body: request.body,
      headers: messageHeaders(request),
    };
    const answer = this.expectOk(call, await this.call(call));
    try {
      return decodeInferResponse(answer.body, readHeaderLength(answer.headers.get(INFERENCE_HEADER_CONTENT_LENGTH)));
    } catch (error) {
      throw this.protocolError(call, `answered with an infer response that does not decode: ${(error as Error).message}`, error);
    }
  }

  /** One frame's inputs (by input name) -> its outputs (by output name), as the frame path's ModelRunner takes and gives them. */
  async infer(
    model: string,
    inputs: Readonly<Record<string, InputTensor>>,
    options: InferOptions = {},
  ): Promise<Record<string, OutputTensor>> {
    const tensors = Object.entries(inputs).map(([name, tensor]) => fromInputTensor(name, tensor));
    const response = await this.inferTensors(model, tensors, options);
    return Object.fromEntries(response.outputs.map((output) => [output.name, toOutputTensor(output)]));
  }

  /** The model's run step for the frame path: one frame's tensors to its outputs on this engine. */
  runner(model: string, options: Omit<InferOptions, 'signal' | 'id'> = {}): ModelRunner {
    return (inputs) => this.infer(model, inputs, options);
  }

  /** One HTTP exchange, bounded by the timeout and the caller's signal; transport failures become KserveErrors. */
  private async call(call: Call): Promise<Answer> {
    const timeoutMs = call.timeoutMs ?? this.timeoutMs;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const callerAbort = () => controller.abort();
    call.signal?.addEventListener('abort', callerAbort, { once: true });
    try {
      if (call.signal?.aborted) throw call.signal.reason;
      const response = await fetch(`${this.url}${call.path}`, {
        method: call.method,
        // Identity: fetch asks for gzip by default and Triton obliges, compressing the outputs: +110 ms a frame here.
        headers: { accept: 'application/json, application/octet-stream', 'accept-encoding': 'identity', ...this.headers, ...call.headers },
        // A plain ArrayBuffer-backed view: the DOM typings of fetch (used where the browser lib is loaded) accept no other.
        ...(call.body ? { body: call.body as Uint8Array<ArrayBuffer> } : {}),
        signal: controller.signal,
      });
      const body = new Uint8Array(await response.arrayBuffer());
      return { status: response.status, headers: response.headers, body };
    } catch (error) {
      throw this.transportError(call, error, timedOut, timeoutMs);
    } finally {
      clearTimeout(timer);
      call.signal?.removeEventListener('abort', callerAbort);
    }
  }

  private describe(call: Call): string {
    return `${call.method} ${this.url}${call.path}`;
  }

  private expectOk(call: Call, answer: Answer): Answer {
    if (answer.status === 200) return answer;
    const engineMessage = decodeErrorMessage(answer.body);
    throw new KserveError('http', `${this.describe(call)} answered HTTP ${answer.status}${engineMessage ? `: ${engineMessage}` : ''}`, {
      status: answer.status,
      ...(engineMessage ? { engineMessage } : {}),
    });
  }

  private protocolError(call: Call, what: string, cause?: unknown): KserveError {
    return new KserveError('protocol', `${this.describe(call)} ${what}`, cause === undefined ? {} : { cause });
  }

  private transportError(call: Call, error: unknown, timedOut: boolean, timeoutMs: number): KserveError {
    if (error instanceof KserveError) return error;
    const what = this.describe(call);
    if (timedOut) return new KserveError('timeout', `${what} got no answer within ${timeoutMs} ms`, { cause: error });
    if (call.signal?.aborted) return new KserveError('aborted', `${what} was abandoned by its caller`, { cause: error });
    const code = errorCode(error);
    if (code === 'ECONNREFUSED')
      return new KserveError('connection', `${what} failed: connection refused (is the engine running?)`, { cause: error });
    const reason = rootMessage(error);
    if (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE') {
      return new KserveError('connection', `${what} failed: the engine closed the connection before answering (${reason})`, {
        cause: error,
      });
    }
    return new KserveError('connection', `${what} failed: ${reason}${code ? ` (${code})` : ''}`, { cause: error });
  }
}

function modelPath(model: string, version: string | undefined): string {
  return `/v2/models/${encodeURIComponent(model)}${version === undefined ? '' : `/versions/${encodeURIComponent(version)}`}`;
}

/** fetch wraps the socket's error in `cause` (an AggregateError when several addresses were tried). */
function errorCode(error: unknown): string | undefined {
  for (let e: unknown = error; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    const inner = (e as { errors?: unknown }).errors;
    if (Array.isArray(inner) && inner.length > 0) return errorCode(inner[0]);
  }
  return undefined;
}

function rootMessage(error: unknown): string {
  let e: unknown = error;
  while (e && typeof e === 'object' && (e as { cause?: unknown }).cause) e = (e as { cause: unknown }).cause;
  return e instanceof Error ? e.message : String(e);
}
