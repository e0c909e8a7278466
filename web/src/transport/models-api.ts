import { MODELS_PATH, type ModelsResponse } from '@sightline/shared/protocol';

/** GET /api/models, with a shape check so a wrong answer fails loudly instead of rendering nonsense. */
export async function fetchModels(signal?: AbortSignal): Promise<ModelsResponse> {
  const response = await fetch(MODELS_PATH, { signal, headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`GET ${MODELS_PATH} answered ${response.status} ${response.statusText}`.trim());
  const body = (await response.json()) as Partial<ModelsResponse>;
  if (!body || !Array.isArray(body.models) || typeof body.defaultModel !== 'string') {
    throw new Error(`GET ${MODELS_PATH} did not return a model list`);
  }
  return body as ModelsResponse;
}
