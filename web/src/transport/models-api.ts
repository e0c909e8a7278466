import { MODELS_PATH, type ModelsResponse } from '@sightline/shared/protocol';
import { validateModelsResponse } from '@sightline/shared/validation';

/** GET /api/models, checked against the shared schema so a wrong answer fails loudly instead of rendering nonsense. */
export async function fetchModels(signal?: AbortSignal): Promise<ModelsResponse> {
  const response = await fetch(MODELS_PATH, { signal, headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`GET ${MODELS_PATH} answered ${response.status} ${response.statusText}`.trim());
  return validateModelsResponse(await response.json());
}
