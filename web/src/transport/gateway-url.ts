import { LINK_QUERY_PARAM, PROTOCOL_QUERY_PARAM, PROTOCOL_VERSION, WS_PATH } from '@sightline/shared/protocol';

/**
 * ws(s)://<host>/ws?protocol=1 for the page's own origin (the gateway serves the page, or Vite proxies it);
 * with `&link=SPEC` when the connection is to run behind an emulated link (none: no parameter at all).
 */
export function gatewaySocketUrl(location: Pick<Location, 'protocol' | 'host'>, link = 'none'): string {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const query = new URLSearchParams({ [PROTOCOL_QUERY_PARAM]: String(PROTOCOL_VERSION) });
  if (link !== 'none') query.set(LINK_QUERY_PARAM, link);
  return `${scheme}//${location.host}${WS_PATH}?${query.toString()}`;
}
