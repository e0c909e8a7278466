/**
 * Local by default, exposed on purpose (Vite's convention). On localhost the gateway needs no TLS and no
 * token; bound to other addresses (`--host`) it serves HTTPS with a kept self-signed certificate (phones
 * give the camera only to secure pages) and asks for an access token, generated at start unless one is
 * set. Both can be set by hand, and the token can be turned off only by saying so.
 */
import type { AccessInfo } from '@sightline/shared/protocol';
import type { GatewayConfig } from '../config.ts';
import type { Logger } from '../logger.ts';
import { generateToken, TOKEN_QUERY_PARAM } from './access-policy.ts';
import { isLoopbackHost, localNetworkNames, type NetworkNames, urlHost } from './network-names.ts';
import { resolveTls, type TlsMaterial, type TlsSetting } from './tls.ts';

export interface Exposure {
  /** Bound beyond this machine. */
  exposed: boolean;
  names: NetworkNames;
  tls: TlsMaterial | undefined;
  token: string | undefined;
  /** Where the token came from: SIGHTLINE_TOKEN, generated for this run, or none in force. */
  tokenSource: 'configured' | 'generated' | 'none';
}

type ExposureConfig = Pick<GatewayConfig, 'host' | 'tls' | 'tlsCert' | 'tlsKey' | 'dataDir' | 'token' | 'auth'>;

export async function resolveExposure(config: ExposureConfig): Promise<Exposure> {
  const exposed = !isLoopbackHost(config.host);
  const names = localNetworkNames();
  const tls = await resolveTls(tlsSetting(config, exposed), names);
  let token: string | undefined;
  let tokenSource: Exposure['tokenSource'] = 'none';
  if (config.auth === 'token' && config.token) {
    token = config.token;
    tokenSource = 'configured';
  } else if (config.auth === 'token' && exposed) {
    token = generateToken();
    tokenSource = 'generated';
  }
  return { exposed, names, tls, token, tokenSource };
}

function tlsSetting(config: ExposureConfig, exposed: boolean): TlsSetting {
  if (config.tlsCert && config.tlsKey) return { mode: 'files', certPath: config.tlsCert, keyPath: config.tlsKey };
  const mode = config.tls ?? (exposed ? 'auto' : 'off');
  return mode === 'auto' ? { mode: 'auto', dataDir: config.dataDir } : { mode: 'off' };
}

export function warnAboutExposure(exposure: Exposure, logger: Logger): void {
  if (!exposure.exposed) return;
  if (exposure.tokenSource === 'none') {
    logger.warn(
      'exposed without an access token (SIGHTLINE_AUTH=none): anyone who can reach this address can use the gateway and its camera frames',
    );
  }
  if (!exposure.tls) {
    logger.warn(
      'exposed over plain HTTP (SIGHTLINE_TLS=off): other devices get no camera (browsers need a secure page) and the token travels in clear',
    );
  }
}

/** The URLs people can open: on this machine, and on the LAN (with the token, as the QR code carries it). */
export function accessUrls(exposure: Exposure, scheme: 'http' | 'https', port: number, host: string): AccessInfo {
  const at = (name: string, withToken: boolean) => {
    const url = new URL(`${scheme}://${urlHost(name)}:${port}/`);
    if (withToken && exposure.token) url.searchParams.set(TOKEN_QUERY_PARAM, exposure.token);
    return url.toString();
  };
  const everyAddress = host === '0.0.0.0' || host === '::';
  const local = everyAddress || isLoopbackHost(host) ? [at('localhost', true)] : [at(host, true)];
  const network = !exposure.exposed ? [] : everyAddress ? exposure.names.lan.map((ip) => at(ip, true)) : [at(host, true)];
  return { exposed: exposure.exposed, secure: scheme === 'https', tokenRequired: exposure.token !== undefined, local, network };
}

/** A URL as it may be logged: the token is printed once at start, never written to the log. */
export function withoutToken(url: string): string {
  const parsed = new URL(url);
  if (parsed.searchParams.has(TOKEN_QUERY_PARAM)) parsed.searchParams.set(TOKEN_QUERY_PARAM, '…');
  return parsed.toString();
}
