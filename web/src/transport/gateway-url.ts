import { PROTOCOL_QUERY_PARAM, PROTOCOL_VERSION, WS_PATH } from '@sightline/shared/protocol';

/** ws(s)://<host>/ws?protocol=1 for the page's own origin (the gateway serves the page, or Vite proxies it). */
export function gatewaySocketUrl(location: Pick<Location, 'protocol' | 'host'>): string {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}${WS_PATH}?${PROTOCOL_QUERY_PARAM}=${PROTOCOL_VERSION}`;
}
