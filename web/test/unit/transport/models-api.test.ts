import { afterEach, describe, expect, it, vi } from 'vitest';
import { MODELS_PATH, type ModelsResponse } from '@sightline/shared/protocol';
import { fetchModels } from '../../../src/transport/models-api.ts';
import { modelInfo } from '../../support/models.ts';

const models: ModelsResponse = { protocol: 1, defaultModel: 'ssd', models: [modelInfo()] };

function answer(status: number, body: unknown) {
  const fetch = vi.fn(
    async () => new Response(JSON.stringify(body), { status, statusText: status === 200 ? 'OK' : 'Service Unavailable' }),
  );
  vi.stubGlobal('fetch', fetch);
  return fetch;
}

describe('fetchModels', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('returns the model list the gateway answers, asking for JSON with the caller signal', async () => {
    const fetch = answer(200, models);
    const abort = new AbortController();
    await expect(fetchModels(abort.signal)).resolves.toEqual(models);
    expect(fetch).toHaveBeenCalledWith(MODELS_PATH, { signal: abort.signal, headers: { accept: 'application/json' } });
  });

  it('fails on an HTTP error, naming the status', async () => {
    answer(503, { error: 'starting' });
    await expect(fetchModels()).rejects.toThrow('GET /api/models answered 503 Service Unavailable');
  });

  it('fails loudly on a body that is not a model list, instead of rendering nonsense', async () => {
    answer(200, { models: 'none' });
    await expect(fetchModels()).rejects.toThrow(/model list/);
    answer(200, { ...models, models: [{ ...models.models[0], input: { width: 300 } }] });
    await expect(fetchModels()).rejects.toThrow(/models\.0\.input/);
  });
});
