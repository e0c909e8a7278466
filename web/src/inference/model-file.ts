/**
 * A model file for on-device inference: read from the browser's Cache API when it holds a copy, else
 * downloaded from the gateway (with progress), and in both cases checked against the SHA-256 that
 * GET /api/models names before it is used. A verified download is put in the cache; copies of the same
 * model under another digest (an older file) are removed. The browser's HTTP cache sits below this
 * (the gateway lets it keep the file for a year: its URL carries the digest).
 */
import type { ModelFileInfo } from './worker-protocol.ts';

/** Cache API bucket of model files; bump the suffix to drop every copy at once. */
export const MODEL_CACHE_NAME = 'sightline-models-v1';

export interface ModelFileRef {
  /** Same-origin path, e.g. /api/models/<name>/model.onnx?sha256=<hex>. */
  url: string;
  /** Hex SHA-256. */
  sha256: string;
  /** Expected size in bytes (for progress; the checksum decides). */
  bytes: number;
}

export interface ModelFileDeps {
  fetch: (url: string, init?: RequestInit) => Promise<Response>;
  /** The Cache API; undefined where the browser has none (insecure pages): the HTTP cache alone then. */
  caches?: Pick<CacheStorage, 'open'> | undefined;
  /** crypto.subtle; undefined on insecure pages, where no file can be checked. */
  subtle?: Pick<SubtleCrypto, 'digest'> | undefined;
  now: () => number;
  /** Base for relative URLs (cache keys are absolute). */
  baseUrl: string;
}

export class ChecksumMismatch extends Error {
  constructor(
    readonly expected: string,
    readonly actual: string,
  ) {
    super(`the model file's SHA-256 is ${actual.slice(0, 12)}…, not ${expected.slice(0, 12)}… as the gateway announced: not used`);
    this.name = 'ChecksumMismatch';
  }
}

export async function sha256Hex(bytes: Uint8Array, subtle: Pick<SubtleCrypto, 'digest'>): Promise<string> {
  const digest = new Uint8Array(await subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  let hex = '';
  for (const byte of digest) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/** Throws ChecksumMismatch unless `bytes` hash to `expected`. */
export async function verifySha256(bytes: Uint8Array, expected: string, subtle: Pick<SubtleCrypto, 'digest'>): Promise<void> {
  const actual = await sha256Hex(bytes, subtle);
  if (actual !== expected.toLowerCase()) throw new ChecksumMismatch(expected, actual);
}

/** The body of `response`, reporting progress; `expected` sizes the buffer (grown if the body is longer). */
export async function readWithProgress(response: Response, expected: number, onProgress: (loaded: number) => void): Promise<Uint8Array> {
  if (!response.body) return new Uint8Array(await response.arrayBuffer());
  const reader = response.body.getReader();
  let buffer = new Uint8Array(Math.max(expected, 0));
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (length + value.byteLength > buffer.byteLength) {
      const grown = new Uint8Array(Math.max(buffer.byteLength * 2, length + value.byteLength));
      grown.set(buffer.subarray(0, length));
      buffer = grown;
    }
    buffer.set(value, length);
    length += value.byteLength;
    onProgress(length);
  }
  return length === buffer.byteLength ? buffer : buffer.slice(0, length);
}

export interface LoadedModelFile {
  data: Uint8Array;
  info: ModelFileInfo;
}

/**
 * The verified bytes of a model file. `onProgress(loaded, total)` follows a download. Throws when the
 * page cannot verify (no crypto.subtle), the gateway refuses, or the bytes do not match even after one
 * download that bypasses the HTTP cache.
 */
export async function loadModelFile(
  file: ModelFileRef,
  deps: ModelFileDeps,
  onProgress: (loaded: number, total: number) => void = () => undefined,
): Promise<LoadedModelFile> {
  const { subtle } = deps;
  if (!subtle) throw new Error('on-device inference needs a secure page (HTTPS or localhost) to check the model file');
  const key = new URL(file.url, deps.baseUrl).href;
  const cache = deps.caches ? await deps.caches.open(MODEL_CACHE_NAME).catch(() => undefined) : undefined;
  const started = deps.now();

  const cached = await cache?.match(key).catch(() => undefined);
  if (cached) {
    const data = new Uint8Array(await cached.arrayBuffer());
    const fetched = deps.now();
    try {
      await verifySha256(data, file.sha256, subtle);
      return { data, info: { bytes: data.byteLength, source: 'cache', fetchMs: fetched - started, verifyMs: deps.now() - fetched } };
    } catch (error) {
      // A damaged copy: forget it and download.
      if (!(error instanceof ChecksumMismatch)) throw error;
      await cache?.delete(key).catch(() => false);
    }
  }

  let lastError: unknown;
  // The second try bypasses the HTTP cache, in case that is what held a bad copy.
  for (const mode of ['default', 'reload'] as const) {
    const attempt = deps.now();
    const response = await deps.fetch(key, { credentials: 'same-origin', cache: mode });
    if (!response.ok) throw new Error(`GET ${file.url.split('?')[0]} answered ${response.status} ${response.statusText}`.trim());
    const total = Number(response.headers.get('content-length')) || file.bytes;
    const data = await readWithProgress(response, total, (loaded) => onProgress(loaded, total));
    const fetched = deps.now();
    try {
      await verifySha256(data, file.sha256, subtle);
    } catch (error) {
      lastError = error;
      if (error instanceof ChecksumMismatch) continue;
      throw error;
    }
    const verifyMs = deps.now() - fetched;
    if (cache) await keepInCache(cache, key, data);
    return { data, info: { bytes: data.byteLength, source: 'network', fetchMs: fetched - attempt, verifyMs } };
  }
  throw lastError instanceof Error ? lastError : new Error(String(lastError));
}

/** Stores a verified file and drops the copies of the same path under other digests. Best effort (quota). */
async function keepInCache(cache: Cache, key: string, data: Uint8Array): Promise<void> {
  try {
    const path = new URL(key).pathname;
    for (const request of await cache.keys()) {
      if (request.url !== key && new URL(request.url).pathname === path) await cache.delete(request);
    }
    await cache.put(
      key,
      new Response(data as Uint8Array<ArrayBuffer>, {
        headers: { 'Content-Type': 'application/octet-stream', 'Content-Length': String(data.byteLength) },
      }),
    );
  } catch {
    // Out of quota or storage disabled: the HTTP cache still has it.
  }
}
