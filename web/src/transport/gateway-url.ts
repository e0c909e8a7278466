import {
  CAMERA_QUERY_PARAM,
  DEFAULT_CAMERA,
  LINK_QUERY_PARAM,
  PROTOCOL_QUERY_PARAM,
  PROTOCOL_VERSION,
  WS_PATH,
} from '@sightline/shared/protocol';

/**
 * ws(s)://<host>/ws?protocol=1 for the page's own origin (the gateway serves the page, or Vite proxies it);
 * with `&link=SPEC` when the connection is to run behind an emulated link (none: no parameter at all), and
 * `&camera=NAME` when its frames belong to a camera other than the default one (the gateway's rules and events
 * are per camera; a stream naming none is `default`).
 */
export function gatewaySocketUrl(location: Pick<Location, 'protocol' | 'host'>, link = 'none', camera = DEFAULT_CAMERA): string {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const query = new URLSearchParams({ [PROTOCOL_QUERY_PARAM]: String(PROTOCOL_VERSION) });
  if (link !== 'none') query.set(LINK_QUERY_PARAM, link);
  if (camera !== DEFAULT_CAMERA) query.set(CAMERA_QUERY_PARAM, camera);
  return `${scheme}//${location.host}${WS_PATH}?${query.toString()}`;
}
