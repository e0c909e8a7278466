/** Where a gateway's WebSocket is, from the URL a user gives. */
import { PROTOCOL_QUERY_PARAM, PROTOCOL_VERSION, WS_PATH } from '@sightline/shared/protocol';

/**
 * A gateway's base URL (`http(s)://host:port`, optionally under a path prefix) becomes its WebSocket URL
 * (`ws(s)://host:port/prefix/ws?protocol=N`); a `ws(s)://` URL is taken as it is, so a test can name any
 * path or protocol version.
 */
export function wsUrl(target: string): string {
  const url = new URL(target);
  if (url.protocol === 'ws:' || url.protocol === 'wss:') return target;
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.pathname = url.pathname.replace(/\/+$/, '') + WS_PATH;
  url.searchParams.set(PROTOCOL_QUERY_PARAM, String(PROTOCOL_VERSION));
  return url.toString();
}
