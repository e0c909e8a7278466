/**
 * WHIP (RFC 9725) from the browser: the gateway's ICE servers from an `OPTIONS` pre-flight (its `Link`
 * headers, section 4.6, read before the peer connection is made so they take part in gathering), the offer
 * `POST`ed as application/sdp once ICE gathering is complete (the gateway does no trickle ICE), the answer and
 * the session's `Location` from the `201 Created`, and `DELETE` on that location to end. Same origin as the
 * dashboard, so the gateway's cookie carries the token and its Origin rule is met. The emulated link the peer
 * is to run behind goes in the endpoint's query (`?link=SPEC`, as on the WebSocket): the gateway puts the
 * session's whole UDP flow behind it, for the session's life.
 */
import { CAMERA_QUERY_PARAM, DEFAULT_CAMERA, LINK_QUERY_PARAM, type WhipReceiveStats } from '@sightline/shared/protocol';
import type { Clock, TimerHandle } from '../time/clock.ts';

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

/** The `error` of the gateway's JSON answer to a link it cannot emulate (the spec does not parse, a trace file). */
export const BAD_LINK_ERROR = 'bad_link';

/** The gateway refused the offer: its status, its error code and its reason (`{error, reason}` JSON, or the text). */
export class WhipRefused extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    readonly code?: string,
  ) {
    super(`WHIP ${status}: ${reason}`);
    this.name = 'WhipRefused';
  }
}

/**
 * The WHIP endpoint asking for an emulated link (`none`: no link) for the frames of a camera (`?camera=NAME`;
 * the default camera: no parameter). Neither: the endpoint as it is.
 */
export function whipEndpoint(url: string, link = 'none', camera = DEFAULT_CAMERA): string {
  if (link === 'none' && camera === DEFAULT_CAMERA) return url;
  const endpoint = new URL(url, globalThis.location?.href ?? 'http://localhost/');
  if (link !== 'none') endpoint.searchParams.set(LINK_QUERY_PARAM, link);
  if (camera !== DEFAULT_CAMERA) endpoint.searchParams.set(CAMERA_QUERY_PARAM, camera);
  return endpoint.href;
}

/**
 * The ICE servers in `Link` header values (`<stun:host>; rel="ice-server"`, TURN with `username` and
 * `credential`). Several headers arrive joined by commas, so values are split on the commas between them,
 * never inside `<…>` or a quoted string.
 */
export function parseIceServerLinks(header: string | null): RTCIceServer[] {
  if (!header) return [];
  const servers: RTCIceServer[] = [];
  for (const value of splitOutside(header, ',')) {
    const url = /^\s*<([^>]*)>/.exec(value)?.[1];
    if (!url) continue;
    const params = new Map<string, string>();
    for (const part of splitOutside(value.slice(value.indexOf('>') + 1), ';')) {
      const match = /^\s*([\w-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s;]*))\s*$/.exec(part);
      if (match) params.set(match[1]!.toLowerCase(), match[2] !== undefined ? match[2].replace(/\\(.)/g, '$1') : match[3]!);
    }
    if (params.get('rel') !== 'ice-server') continue;
    const username = params.get('username');
    const credential = params.get('credential');
    servers.push({ urls: url, ...(username !== undefined ? { username } : {}), ...(credential !== undefined ? { credential } : {}) });
  }
  return servers;
}

/** Splits `text` on `separator` where it is outside `<…>` and outside double quotes. */
function splitOutside(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  let inAngle = false;
  let inQuote = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (inQuote && char === '\\' && i + 1 < text.length) {
      current += char + text[++i]!;
      continue;
    }
    if (char === '"' && !inAngle) inQuote = !inQuote;
    else if (char === '<' && !inQuote) inAngle = true;
    else if (char === '>' && !inQuote) inAngle = false;
    if (char === separator && !inAngle && !inQuote) {
      parts.push(current);
      current = '';
    } else current += char;
  }
  if (current.trim() !== '') parts.push(current);
  return parts;
}

/** The gateway's ICE servers (none when it names none, or the pre-flight fails: host candidates still work). */
export async function whipIceServers(url: string, fetch: FetchLike): Promise<RTCIceServer[]> {
  try {
    const response = await fetch(url, { method: 'OPTIONS', credentials: 'same-origin' });
    return response.ok ? parseIceServerLinks(response.headers.get('link')) : [];
  } catch {
    return [];
  }
}

export interface WhipSession {
  answer: string;
  /** The session resource, absolute (DELETE it to end the session). */
  location: string;
}

/** POSTs the offer; the answer and the session's location, or WhipRefused with the gateway's reason. */
export async function whipPublish(url: string, offer: string, fetch: FetchLike): Promise<WhipSession> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/sdp' },
    body: offer,
    credentials: 'same-origin',
  });
  const body = await response.text();
  if (response.status !== 201) {
    const refusal = refusalOf(body);
    throw new WhipRefused(response.status, refusal.reason || response.statusText || 'refused', refusal.code);
  }
  const location = response.headers.get('location');
  if (!location) throw new WhipRefused(response.status, 'the answer named no session (no Location header)');
  return { answer: body, location: new URL(location, new URL(url, globalThis.location?.href ?? 'http://localhost/')).href };
}

/** The gateway's own receiver statistics of the session (GET on its location); undefined when it cannot tell. */
export async function whipReceiveStats(location: string, fetch: FetchLike): Promise<WhipReceiveStats | undefined> {
  try {
    const response = await fetch(location, { method: 'GET', credentials: 'same-origin', cache: 'no-store' });
    if (!response.ok) return undefined;
    const body: unknown = await response.json();
    return body && typeof body === 'object' && Array.isArray((body as WhipReceiveStats).video) ? (body as WhipReceiveStats) : undefined;
  } catch {
    return undefined;
  }
}

/** Ends the session; the gateway also ends it by itself once the peer goes quiet. */
export async function whipDelete(location: string, fetch: FetchLike): Promise<void> {
  try {
    await fetch(location, { method: 'DELETE', credentials: 'same-origin', keepalive: true });
  } catch {
    // Gone already, or the page is closing: the gateway's inactivity close ends the session.
  }
}

function refusalOf(body: string): { reason: string; code?: string } {
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed && typeof parsed === 'object' && 'reason' in parsed && typeof parsed.reason === 'string') {
      const code = 'error' in parsed && typeof parsed.error === 'string' ? parsed.error : undefined;
      return { reason: parsed.reason, ...(code === undefined ? {} : { code }) };
    }
  } catch {
    // not JSON: the text itself
  }
  return { reason: body.trim().slice(0, 200) };
}

/** The part of RTCPeerConnection gathering is watched on. */
export interface GatheringPeer {
  readonly iceGatheringState: RTCIceGatheringState;
  addEventListener(type: 'icegatheringstatechange', listener: () => void): void;
  removeEventListener(type: 'icegatheringstatechange', listener: () => void): void;
}

/**
 * Resolves when ICE gathering is complete, so the offer holds every candidate; after `timeoutMs` it resolves
 * anyway with what was gathered (a host candidate comes at once; a STUN server that never answers must not hold
 * the connection).
 */
export function iceGatheringComplete(
  peer: GatheringPeer,
  clock: Pick<Clock, 'setTimeout' | 'clearTimeout'>,
  timeoutMs: number,
): Promise<void> {
  if (peer.iceGatheringState === 'complete') return Promise.resolve();
  return new Promise((resolve) => {
    const onChange = (): void => {
      if (peer.iceGatheringState === 'complete') done();
    };
    const done = (): void => {
      peer.removeEventListener('icegatheringstatechange', onChange);
      clock.clearTimeout(timer);
      resolve();
    };
    const timer: TimerHandle = clock.setTimeout(done, timeoutMs);
    peer.addEventListener('icegatheringstatechange', onChange);
  });
}
