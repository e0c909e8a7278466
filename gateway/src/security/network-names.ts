/**
 * The names and addresses this machine answers to: what goes into the certificate, which Host headers
 * and Origins the gateway accepts as its own, and which URLs it prints.
 */
import { hostname, networkInterfaces } from 'node:os';
import { isIP } from 'node:net';

export interface NetworkNames {
  /** DNS names: localhost, the host name (and its .local mDNS form). */
  dns: string[];
  /** Every address of this machine: loopback first, then LAN addresses. */
  ips: string[];
  /** LAN addresses only (not loopback, not link-local): what a phone on the same network can reach. */
  lan: string[];
}

/** Whether binding `host` keeps the gateway on this machine only. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\./.test(bare);
}

export function localNetworkNames(): NetworkNames {
  const lan: string[] = [];
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) {
      if (address.internal) continue;
      // Link-local IPv6 needs a zone id in a URL; no phone types that.
      if (address.family === 'IPv6' && address.address.toLowerCase().startsWith('fe80:')) continue;
      lan.push(address.address);
    }
  }
  // IPv4 first: what people type and what QR codes should carry.
  lan.sort((a, b) => isIP(a) - isIP(b));
  const host = hostname().toLowerCase();
  const dns = ['localhost', ...(host && host !== 'localhost' ? [host, `${host}.local`] : [])];
  return { dns, ips: ['127.0.0.1', '::1', ...lan], lan };
}

/** `host` as it goes into a URL's authority: IPv6 in brackets. */
export function urlHost(host: string): string {
  return isIP(host) === 6 ? `[${host}]` : host;
}

/** The host part of a Host header, without port or IPv6 brackets, lowercased. */
export function hostHeaderName(header: string): string {
  const trimmed = header.trim().toLowerCase();
  if (trimmed.startsWith('[')) return trimmed.slice(1, trimmed.indexOf(']'));
  const colon = trimmed.lastIndexOf(':');
  return colon >= 0 && trimmed.indexOf(':') === colon ? trimmed.slice(0, colon) : trimmed;
}
