/**
 * A camera's rules, counts and event history over the gateway's HTTP API (same origin: its cookie carries the
 * token and its Origin rule is met): `GET`/`PUT /api/cameras/NAME/rules`, `GET /api/cameras/NAME/counts`,
 * `GET /api/events?camera=&since=&limit=`. A refusal keeps the gateway's own words, with the field they name.
 */
import { CAMERA_QUERY_PARAM, cameraCountsPath, cameraRulesPath, EVENTS_PATH } from '@sightline/shared/protocol';
import type { CameraCountsResponse, CameraRules, CameraRulesResponse, EventsPage } from '@sightline/shared/events';
import { rulesOnly } from './rules-editor.ts';

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

/** The gateway would not take or give what was asked: its status, its error code, and its message. */
export class RulesApiError extends Error {
  override readonly name = 'RulesApiError';
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
    /** The field the refusal names (`lines[0].name`), when the gateway says it apart or its message starts with it. */
    readonly field?: string,
  ) {
    super(message);
  }
}

/** `lines[0].name: must not be empty` -> `lines[0].name`. */
const FIELD_PREFIX = /^((?:lines|zones)(?:\[\d+\])?(?:\.[A-Za-z]+)?(?:\[\d+\])*)\s*:/;

/** The error of a refusal: `{type:'error', code, message, field?}` (or `{error, reason}`, or plain text). */
async function refusal(response: Response, what: string): Promise<RulesApiError> {
  const text = await response.text().catch(() => '');
  let code: string | undefined;
  let message = text.trim();
  let field: string | undefined;
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    if (typeof body.message === 'string') message = body.message;
    else if (typeof body.reason === 'string') message = body.reason;
    if (typeof body.code === 'string') code = body.code;
    else if (typeof body.error === 'string') code = body.error;
    if (typeof body.field === 'string') field = body.field;
  } catch {
    // plain text
  }
  field ??= FIELD_PREFIX.exec(message)?.[1];
  // No words of its own (or a page, not a message: a gateway without this API): the status says it.
  if (message === '' || message.startsWith('<')) message = `${what} answered ${response.status} ${response.statusText}`.trim();
  return new RulesApiError(response.status, message, code, field);
}

async function getJson<T>(path: string, fetcher: FetchLike, signal?: AbortSignal): Promise<T> {
  const response = await fetcher(path, { signal: signal ?? null, headers: { accept: 'application/json' } });
  if (!response.ok) throw await refusal(response, `GET ${path}`);
  return (await response.json()) as T;
}

const defaultFetch: FetchLike = (input, init) => fetch(input, init);

export function isCameraRules(value: unknown): value is CameraRules {
  if (!value || typeof value !== 'object') return false;
  const { lines, zones } = value as Record<string, unknown>;
  return Array.isArray(lines) && Array.isArray(zones);
}

export async function fetchRules(camera: string, signal?: AbortSignal, fetcher: FetchLike = defaultFetch): Promise<CameraRulesResponse> {
  const body = await getJson<unknown>(cameraRulesPath(camera), fetcher, signal);
  if (!isCameraRules(body)) throw new Error(`GET ${cameraRulesPath(camera)}: not rules`);
  return { camera, ...body };
}

/** Replaces the camera's rules; the answer is what the gateway stored. */
export async function saveRules(camera: string, rules: CameraRules, fetcher: FetchLike = defaultFetch): Promise<CameraRulesResponse> {
  const path = cameraRulesPath(camera);
  const response = await fetcher(path, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(rulesOnly(rules)),
  });
  if (!response.ok) throw await refusal(response, `PUT ${path}`);
  const body: unknown = await response.json().catch(() => undefined);
  // An answer without the rules: they are as sent.
  return isCameraRules(body) ? { camera, ...body } : { camera, ...rulesOnly(rules) };
}

export async function fetchCounts(camera: string, signal?: AbortSignal, fetcher: FetchLike = defaultFetch): Promise<CameraCountsResponse> {
  const body = await getJson<CameraCountsResponse>(cameraCountsPath(camera), fetcher, signal);
  return { camera, counts: Array.isArray(body.counts) ? body.counts : [] };
}

/** One page of the camera's history after `since` (oldest first). */
export async function fetchEvents(
  camera: string,
  since: number | undefined,
  limit: number,
  signal?: AbortSignal,
  fetcher: FetchLike = defaultFetch,
): Promise<EventsPage> {
  const query = new URLSearchParams({ [CAMERA_QUERY_PARAM]: camera, limit: String(limit) });
  if (since !== undefined) query.set('since', String(since));
  const body = await getJson<EventsPage>(`${EVENTS_PATH}?${query.toString()}`, fetcher, signal);
  return { events: Array.isArray(body.events) ? body.events : [], ...(body.next !== undefined ? { next: body.next } : {}) };
}
