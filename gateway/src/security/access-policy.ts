/**
 * Who may use the gateway: the access token (when one is in force), the origins whose pages may open its
 * WebSocket, and the host names it answers to. Pure decisions on request headers; the HTTP and upgrade
 * guards apply them.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { parse as parseCookies } from 'cookie';
import { hostHeaderName, type NetworkNames, urlHost } from './network-names.ts';

export const TOKEN_COOKIE = 'sightline_token';
export const TOKEN_QUERY_PARAM = 'token';

export interface AccessPolicyOptions {
  scheme: 'http' | 'https';
  port: number;
  /** The token in force, or undefined when no token is needed. */
  token: string | undefined;
  names: NetworkNames;
  /** Extra origins whose pages may use the gateway (SIGHTLINE_ALLOWED_ORIGINS). */
  allowedOrigins: readonly string[];
  /** Extra host names (SIGHTLINE_ALLOWED_HOSTS); `*` turns the Host check off. */
  allowedHosts: readonly string[];
}

export type Verdict = { ok: true } | { ok: false; status: 401 | 403; reason: string };

const OK: Verdict = { ok: true };

/** A token for one run: 32 random bytes, URL-safe. */
export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

const digest = (value: string) => createHash('sha256').update(value).digest();

export class AccessPolicy {
  readonly origins: ReadonlySet<string>;
  private readonly hosts: ReadonlySet<string> | 'any';
  private readonly tokenDigest: Buffer | undefined;

  constructor(readonly options: AccessPolicyOptions) {
    const { names, scheme, port } = options;
    const hostNames = [...names.dns, ...names.ips].map((name) => name.toLowerCase());
    this.hosts = options.allowedHosts.includes('*') ? 'any' : new Set([...hostNames, ...options.allowedHosts.map((h) => h.toLowerCase())]);
    const defaultPort = scheme === 'https' ? 443 : 80;
    const own = hostNames.map((name) => `${scheme}://${urlHost(name)}${port === defaultPort ? '' : `:${port}`}`);
    this.origins = new Set([...own, ...options.allowedOrigins.map(normaliseOrigin)]);
    this.tokenDigest = options.token === undefined ? undefined : digest(options.token);
  }

  get tokenRequired(): boolean {
    return this.tokenDigest !== undefined;
  }

  /** Compared in constant time: digests of equal length, whatever was presented. */
  tokenMatches(candidate: string | undefined): boolean {
    if (this.tokenDigest === undefined) return true;
    if (!candidate) return false;
    return timingSafeEqual(digest(candidate), this.tokenDigest);
  }

  /** DNS rebinding: a page of another site whose name now points here sends that site's name as Host. */
  checkHost(host: string | undefined): Verdict {
    if (this.hosts === 'any') return OK;
    if (!host || !this.hosts.has(hostHeaderName(host))) {
      return {
        ok: false,
        status: 403,
        reason: `host ${JSON.stringify(host ?? '')} is not a name of this gateway (SIGHTLINE_ALLOWED_HOSTS adds names)`,
      };
    }
    return OK;
  }

  /**
   * Cross-site WebSocket hijacking: a browser sends the Origin of the page that opened the socket. A
   * client that sends none is not a browser, and is judged by the token alone.
   */
  checkOrigin(origin: string | undefined): Verdict {
    if (origin === undefined) return OK;
    if (!this.origins.has(origin.toLowerCase())) {
      return {
        ok: false,
        status: 403,
        reason: `origin ${JSON.stringify(origin)} may not use this gateway (SIGHTLINE_ALLOWED_ORIGINS adds origins)`,
      };
    }
    return OK;
  }

  /** The token from the cookie a browser got, or from `Authorization: Bearer`. */
  checkToken(headers: { cookie?: string | undefined; authorization?: string | undefined }): Verdict {
    if (!this.tokenRequired) return OK;
    if (this.tokenMatches(presentedToken(headers))) return OK;
    return {
      ok: false,
      status: 401,
      reason: 'missing or wrong access token: open the URL the gateway printed, or send Authorization: Bearer <token>',
    };
  }
}

export function presentedToken(headers: { cookie?: string | undefined; authorization?: string | undefined }): string | undefined {
  const bearer = /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? '')?.[1];
  if (bearer) return bearer;
  return headers.cookie ? parseCookies(headers.cookie)[TOKEN_COOKIE] : undefined;
}

function normaliseOrigin(origin: string): string {
  try {
    return new URL(origin).origin.toLowerCase();
  } catch {
    return origin.toLowerCase();
  }
}
