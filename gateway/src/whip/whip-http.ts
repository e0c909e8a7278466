/**
 * WHIP (RFC 9725) over node:http, so it mounts on Express (req and res are node's) or a bare server alike:
 * `POST {base}` with application/sdp -> 201, Location `{base}/{id}`, the answer; `DELETE {base}/{id}` ends
 * the session; `OPTIONS` says what is accepted; `PATCH` (trickle ICE, ICE restart) is not offered: the
 * answer already holds every candidate. Token and Origin checks are the HTTP layer's: `authorize` is
 * called first and its refusal is sent as it is.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LINK_QUERY_PARAM, type WhipReceiveStats } from '@sightline/shared/protocol';
import { ProtocolError } from '@sightline/shared/validation';
import { cameraOf } from '../frames/camera-name.ts';
import { datagramLinkFrom, LinkRequestError, type RequestedLink } from '../link/link-request.ts';
import type { PeerSession } from '../webrtc/peer-session.ts';
import type { SessionManager } from '../webrtc/session-manager.ts';
import type { WebRtcConfig } from '../webrtc/webrtc-config.ts';
import { WhipError } from '../webrtc/whip-error.ts';

export interface WhipRefusal {
  status: number;
  reason: string;
}

export interface WhipHttpOptions {
  manager: SessionManager;
  /** The resource path, e.g. `/whip`. */
  basePath: string;
  authorize?(request: IncomingMessage): WhipRefusal | undefined | Promise<WhipRefusal | undefined>;
  /** Asked when the POST names a link (`?link=`): who may have the gateway emulate one. */
  authorizeLink?(request: IncomingMessage): WhipRefusal | undefined;
}

/** The manager's ICE servers as RFC 9725 section 4.6 `Link` header values, for the client's own ICE agent. */
export function iceServerLinks(servers: WebRtcConfig['iceServers']): string[] {
  const quoted = (text: string) => `"${text.replace(/["\\]/g, '\\$&')}"`;
  return servers.flatMap((server) =>
    (Array.isArray(server.urls) ? server.urls : [server.urls]).map((url) => {
      const credentials =
        server.username === undefined
          ? ''
          : `; username=${quoted(server.username)}; credential=${quoted(server.credential ?? '')}; credential-type="password"`;
      return `<${url}>; rel="ice-server"${credentials}`;
    }),
  );
}

const MAX_OFFER_BYTES = 64 * 1024;
const ALLOW = 'OPTIONS, POST, GET, DELETE';

/** Handles the request when its path is the WHIP resource or one of its sessions; false otherwise. */
export async function handleWhipRequest(request: IncomingMessage, response: ServerResponse, options: WhipHttpOptions): Promise<boolean> {
  const url = new URL(request.url ?? '/', 'http://x');
  const path = url.pathname;
  const base = options.basePath.replace(/\/$/, '');
  const sessionId = path.startsWith(`${base}/`) ? decodeURIComponent(path.slice(base.length + 1)) : undefined;
  if (path !== base && (sessionId === undefined || sessionId.includes('/'))) return false;

  const refusal = await options.authorize?.(request);
  if (refusal) return (send(response, refusal.status, refusal.reason), true);

  try {
    if (request.method === 'OPTIONS') {
      response.writeHead(204, { Allow: ALLOW, 'Accept-Post': 'application/sdp', ...links(options.manager) }).end();
    } else if (request.method === 'POST' && sessionId === undefined) {
      const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (type !== 'application/sdp') return (send(response, 415, 'the offer must be sent as application/sdp'), true);
      const link = requestedLink(url);
      const linkRefusal = link && options.authorizeLink?.(request);
      if (linkRefusal) return (send(response, linkRefusal.status, linkRefusal.reason), true);
      const camera = requestedCamera(url);
      const offer = await readBody(request);
      const { id, answer } = await options.manager.create(offer, { link, camera });
      response
        .writeHead(201, { 'Content-Type': 'application/sdp', Location: `${base}/${encodeURIComponent(id)}`, ...links(options.manager) })
        .end(answer);
    } else if (request.method === 'GET' && sessionId !== undefined) {
      const session = options.manager.get(sessionId);
      if (!session) return (send(response, 404, 'no such session'), true);
      response
        .writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' })
        .end(JSON.stringify(receiveStats(session)));
    } else if (request.method === 'DELETE' && sessionId !== undefined) {
      options.manager.delete(sessionId);
      response.writeHead(200).end();
    } else {
      response.writeHead(405, { Allow: ALLOW, 'Content-Type': 'text/plain' }).end('method not allowed');
    }
  } catch (error) {
    if (error instanceof WhipError) {
      const headers: Record<string, string> = error.status === 503 ? { 'Retry-After': '5' } : {};
      send(response, error.status, error.message, error.code, headers);
    } else if (error instanceof BodyTooLarge) {
      send(response, 413, `the offer is larger than ${MAX_OFFER_BYTES} bytes`);
    } else {
      throw error;
    }
  }
  return true;
}

/** The peer's receiver statistics as the session's `GET` gives them (shared's WhipReceiveStats): each track's, but its byte count. */
function receiveStats(session: PeerSession): WhipReceiveStats {
  const { rttMs, video } = session.stats();
  return {
    ...(rttMs === undefined ? {} : { rttMs }),
    video: video.map(({ codec, bytesReceived: _counted, ...track }) => ({ ...track, ...(codec === undefined ? {} : { codec }) })),
  };
}

/** The link `?link=` names, checked; WhipError `bad_link` with the reason. */
function requestedLink(url: URL): RequestedLink | undefined {
  try {
    return datagramLinkFrom(url.searchParams.get(LINK_QUERY_PARAM));
  } catch (error) {
    if (error instanceof LinkRequestError) throw new WhipError('bad_link', error.message);
    throw error;
  }
}

function requestedCamera(url: URL): string {
  try {
    return cameraOf(url);
  } catch (error) {
    if (error instanceof ProtocolError) throw new WhipError('bad_camera', error.message);
    throw error;
  }
}

function links(manager: SessionManager): Record<string, string[]> {
  const values = iceServerLinks(manager.config.iceServers);
  return values.length > 0 ? { Link: values } : {};
}

class BodyTooLarge extends Error {}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_OFFER_BYTES) throw new BodyTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function send(response: ServerResponse, status: number, reason: string, code?: string, headers: Record<string, string> = {}): void {
  response
    .writeHead(status, { 'Content-Type': 'application/json', ...headers })
    .end(JSON.stringify({ error: code ?? String(status), reason }));
}
