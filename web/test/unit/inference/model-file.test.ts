import { createHash, webcrypto } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  ChecksumMismatch,
  loadModelFile,
  MODEL_CACHE_NAME,
  readWithProgress,
  sha256Hex,
  verifySha256,
  type ModelFileDeps,
} from '../../../src/inference/model-file.ts';

const subtle = webcrypto.subtle;
const BYTES = new Uint8Array(Array.from({ length: 5000 }, (_, i) => (i * 7) % 251));
const SHA = createHash('sha256').update(BYTES).digest('hex');
const BASE = 'https://gateway.test/';
const URL_PATH = `/api/models/m/model.onnx?sha256=${SHA}`;
const file = { url: URL_PATH, sha256: SHA, bytes: BYTES.byteLength };

/** A Cache API bucket in memory. */
class FakeCache {
  readonly entries = new Map<string, Uint8Array>();
  async match(key: string): Promise<Response | undefined> {
    const bytes = this.entries.get(key);
    return bytes ? new Response(bytes.slice()) : undefined;
  }
  async put(key: string, response: Response): Promise<void> {
    this.entries.set(key, new Uint8Array(await response.arrayBuffer()));
  }
  async delete(key: string | Request): Promise<boolean> {
    return this.entries.delete(typeof key === 'string' ? key : key.url);
  }
  async keys(): Promise<Request[]> {
    return [...this.entries.keys()].map((key) => new Request(key));
  }
}

function setup(bodies: Uint8Array[] = [BYTES]) {
  const cache = new FakeCache();
  const opened: string[] = [];
  const fetched: { url: string; cache: RequestCache | undefined }[] = [];
  let time = 0;
  const deps: ModelFileDeps = {
    fetch: async (url, init) => {
      fetched.push({ url, cache: init?.cache });
      const body = bodies[Math.min(fetched.length - 1, bodies.length - 1)]!;
      time += 100;
      return new Response(body.slice(), { headers: { 'content-length': String(body.byteLength) } });
    },
    caches: { open: async (name: string) => (opened.push(name), cache as unknown as Cache) },
    subtle,
    now: () => time,
    baseUrl: BASE,
  };
  return { deps, cache, fetched, opened };
}

describe('sha256 check', () => {
  it('hashes with crypto.subtle as hex, and refuses bytes that do not match', async () => {
    expect(await sha256Hex(BYTES, subtle)).toBe(SHA);
    await expect(verifySha256(BYTES, SHA.toUpperCase(), subtle)).resolves.toBeUndefined();
    const other = BYTES.slice();
    other[0] = 255;
    await expect(verifySha256(other, SHA, subtle)).rejects.toBeInstanceOf(ChecksumMismatch);
  });
});

describe('readWithProgress', () => {
  it('reads a streamed body in chunks, reporting the bytes so far, and grows past a wrong size hint', async () => {
    const chunks = [BYTES.subarray(0, 1000), BYTES.subarray(1000, 3000), BYTES.subarray(3000)];
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      },
    });
    const progress: number[] = [];
    const bytes = await readWithProgress(new Response(body), 1200, (loaded) => progress.push(loaded));
    expect(progress).toEqual([1000, 3000, 5000]);
    expect(bytes).toEqual(BYTES);
  });
});

describe('loadModelFile', () => {
  it('downloads, checks and caches the file on first use; later loads come from the cache, checked again', async () => {
    const h = setup();
    const progress: number[] = [];
    const first = await loadModelFile(file, h.deps, (loaded, total) => progress.push(loaded / total));
    expect(first.info).toMatchObject({ source: 'network', bytes: BYTES.byteLength, fetchMs: 100 });
    expect(first.data).toEqual(BYTES);
    expect(progress.at(-1)).toBe(1);
    expect(h.opened).toEqual([MODEL_CACHE_NAME]);
    expect(h.fetched).toEqual([{ url: `${BASE.slice(0, -1)}${URL_PATH}`, cache: 'default' }]);
    expect([...h.cache.entries.keys()]).toEqual([`https://gateway.test${URL_PATH}`]);

    const second = await loadModelFile(file, h.deps);
    expect(second.info.source).toBe('cache');
    expect(second.data).toEqual(BYTES);
    expect(h.fetched).toHaveLength(1);
  });

  it('replaces a damaged cached copy, and drops copies of the same model under another digest', async () => {
    const h = setup();
    const key = `https://gateway.test${URL_PATH}`;
    const stale = `https://gateway.test/api/models/m/model.onnx?sha256=${'0'.repeat(64)}`;
    h.cache.entries.set(key, new Uint8Array([1, 2, 3]));
    h.cache.entries.set(stale, new Uint8Array([4]));
    const loaded = await loadModelFile(file, h.deps);
    expect(loaded.info.source).toBe('network');
    expect([...h.cache.entries.keys()]).toEqual([key]);
    expect(h.cache.entries.get(key)).toEqual(BYTES);
  });

  it('downloads once more past the HTTP cache when the bytes do not match, and refuses them if they still do not', async () => {
    const bad = BYTES.slice(0, 10);
    const recovered = setup([bad, BYTES]);
    expect((await loadModelFile(file, recovered.deps)).data).toEqual(BYTES);
    expect(recovered.fetched.map((f) => f.cache)).toEqual(['default', 'reload']);

    const broken = setup([bad]);
    await expect(loadModelFile(file, broken.deps)).rejects.toBeInstanceOf(ChecksumMismatch);
    expect(broken.cache.entries.size).toBe(0);
  });

  it('needs crypto.subtle (a secure page); works without the Cache API (HTTP cache only)', async () => {
    const h = setup();
    await expect(loadModelFile(file, { ...h.deps, subtle: undefined })).rejects.toThrow(/secure page/);
    const uncached = await loadModelFile(file, { ...h.deps, caches: undefined });
    expect(uncached.info.source).toBe('network');
  });

  it('says what the gateway answered when it refuses the file', async () => {
    const h = setup();
    const deps = { ...h.deps, fetch: async () => new Response('{}', { status: 401, statusText: 'Unauthorized' }) };
    await expect(loadModelFile(file, deps)).rejects.toThrow('GET /api/models/m/model.onnx answered 401 Unauthorized');
  });
});
