import { ACCESS_PATH, type AccessInfo } from '@sightline/shared/protocol';
import { validateAccessInfo } from '@sightline/shared/validation';

/** GET /api/access: where other devices can open this gateway, checked against the shared schema. */
export async function fetchAccessInfo(signal?: AbortSignal): Promise<AccessInfo> {
  const response = await fetch(ACCESS_PATH, { signal, headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`GET ${ACCESS_PATH} answered ${response.status} ${response.statusText}`.trim());
  return validateAccessInfo(await response.json());
}
