import { createHash, timingSafeEqual } from 'node:crypto';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  AccessPolicy,
  generateToken,
  presentedToken,
  TOKEN_COOKIE,
  type AccessPolicyOptions,
} from '../../../src/security/access-policy.ts';
import type { NetworkNames } from '../../../src/security/network-names.ts';

// The policy's token comparison, watched: it must compare equal-length digests whatever was presented.
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<{ timingSafeEqual: typeof timingSafeEqual }>();
  return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) };
});

const TOKEN = 'sekrit-token-0123456789abcdef';
const NAMES: NetworkNames = {
  dns: ['localhost', 'studio', 'studio.local'],
  ips: ['127.0.0.1', '::1', '192.168.1.23', 'fd00::23'],
  lan: ['192.168.1.23', 'fd00::23'],
};

function policy(overrides: Partial<AccessPolicyOptions> = {}): AccessPolicy {
  return new AccessPolicy({
    scheme: 'http',
    port: 8080,
    token: undefined,
    names: NAMES,
    allowedOrigins: [],
    allowedHosts: [],
    ...overrides,
  });
}

describe('Host check (DNS rebinding)', () => {
  it('accepts every name and address of the machine, with or without the port, in any case, IPv6 in brackets', () => {
    const p = policy();
    for (const host of [
      'localhost:8080',
      'LOCALHOST',
      'studio.local:8080',
      '127.0.0.1:8080',
      '[::1]:8080',
      '192.168.1.23',
      '[fd00::23]:8080',
    ]) {
      expect(p.checkHost(host), host).toEqual({ ok: true });
    }
  });

  it('refuses a name that is not the gateway’s (a rebound domain), a missing Host and an empty one, with 403 and what to change', () => {
    const p = policy();
    for (const host of ['evil.example:8080', 'localhost.evil.example', '10.0.0.9', undefined, '']) {
      const verdict = p.checkHost(host);
      expect(verdict, String(host)).toMatchObject({ ok: false, status: 403 });
      expect(verdict.ok || verdict.reason).toMatch(/is not a name of this gateway \(SIGHTLINE_ALLOWED_HOSTS adds names\)/);
    }
  });

  it('accepts the allowed hosts too, in any case; `*` turns the check off', () => {
    const p = policy({ allowedHosts: ['Sightline.Example.COM'] });
    expect(p.checkHost('sightline.example.com:443')).toEqual({ ok: true });
    expect(p.checkHost('SIGHTLINE.example.com')).toEqual({ ok: true });
    expect(p.checkHost('other.example.com').ok).toBe(false);
    const any = policy({ allowedHosts: ['*'] });
    for (const host of ['evil.example', undefined, '']) expect(any.checkHost(host), String(host)).toEqual({ ok: true });
  });
});

describe('Origin check (cross-site WebSocket hijacking)', () => {
  it('accepts its own origins: every name with the scheme and port it is served on', () => {
    const p = policy();
    for (const origin of [
      'http://localhost:8080',
      'http://studio:8080',
      'http://127.0.0.1:8080',
      'http://[::1]:8080',
      'http://[fd00::23]:8080',
    ]) {
      expect(p.checkOrigin(origin), origin).toEqual({ ok: true });
    }
    expect(p.checkOrigin('HTTP://LocalHost:8080')).toEqual({ ok: true });
  });

  it('refuses the same name on another port or scheme, other sites, and the opaque origin `null`, with 403', () => {
    const p = policy();
    for (const origin of ['http://localhost:8081', 'https://localhost:8080', 'http://localhost', 'https://evil.example', 'null']) {
      const verdict = p.checkOrigin(origin);
      expect(verdict, origin).toMatchObject({ ok: false, status: 403 });
      expect(verdict.ok || verdict.reason).toMatch(/may not use this gateway \(SIGHTLINE_ALLOWED_ORIGINS adds origins\)/);
    }
  });

  it('writes its own origins without the default port, as browsers send them', () => {
    const https = policy({ scheme: 'https', port: 443 });
    expect(https.checkOrigin('https://localhost')).toEqual({ ok: true });
    expect(https.checkOrigin('https://studio.local')).toEqual({ ok: true });
    expect(https.checkOrigin('http://localhost').ok).toBe(false);
  });

  it('takes allowed origins as an operator writes them: any case, a trailing slash or path, the default port spelled out', () => {
    const p = policy({ allowedOrigins: ['http://LOCALHOST:5173/', 'https://app.example.com:443/dashboard'] });
    expect(p.origins).toContain('http://localhost:5173');
    expect(p.origins).toContain('https://app.example.com');
    expect(p.checkOrigin('http://localhost:5173')).toEqual({ ok: true });
    expect(p.checkOrigin('https://app.example.com')).toEqual({ ok: true });
    expect(p.checkOrigin('https://app.example.com:8443').ok).toBe(false);
  });

  it('judges a client that sends no Origin (not a browser) by the token alone', () => {
    expect(policy().checkOrigin(undefined)).toEqual({ ok: true });
  });
});

describe('token check', () => {
  beforeEach(() => {
    vi.mocked(timingSafeEqual).mockClear();
  });

  it('needs nothing when no token is in force', () => {
    const p = policy();
    expect(p.tokenRequired).toBe(false);
    expect(p.checkToken({})).toEqual({ ok: true });
    expect(p.checkToken({ authorization: 'Bearer anything' })).toEqual({ ok: true });
  });

  it('accepts the token as a Bearer credential (scheme in any case) or as the cookie a browser got', () => {
    const p = policy({ token: TOKEN });
    expect(p.tokenRequired).toBe(true);
    expect(p.checkToken({ authorization: `Bearer ${TOKEN}` })).toEqual({ ok: true });
    expect(p.checkToken({ authorization: `bearer   ${TOKEN}` })).toEqual({ ok: true });
    expect(p.checkToken({ cookie: `${TOKEN_COOKIE}=${TOKEN}` })).toEqual({ ok: true });
    expect(p.checkToken({ cookie: `theme=dark; ${TOKEN_COOKIE}=${TOKEN}; lang=en` })).toEqual({ ok: true });
  });

  it('refuses a missing, wrong, truncated or extended token with 401 and says how to present it', () => {
    const p = policy({ token: TOKEN });
    const refused = [
      {},
      { authorization: '' },
      { authorization: 'Bearer' },
      { authorization: `Basic ${Buffer.from(`user:${TOKEN}`).toString('base64')}` },
      { authorization: `Bearer ${TOKEN.slice(0, -1)}` },
      { authorization: `Bearer ${TOKEN}x` },
      { authorization: `Bearer ${TOKEN.toUpperCase()}` },
      { cookie: `${TOKEN_COOKIE}=wrong` },
      { cookie: `other_cookie=${TOKEN}` },
    ];
    for (const headers of refused) {
      const verdict = p.checkToken(headers);
      expect(verdict, JSON.stringify(headers)).toMatchObject({ ok: false, status: 401 });
      expect(verdict.ok || verdict.reason).toMatch(/Authorization: Bearer <token>/);
    }
  });

  it('compares in constant time: digests of the same length whatever was presented, no shortcut on length', () => {
    const p = policy({ token: TOKEN });
    const compare = vi.mocked(timingSafeEqual);
    for (const candidate of ['x', TOKEN.slice(0, 10), TOKEN, `${TOKEN}${'y'.repeat(500)}`]) p.tokenMatches(candidate);
    expect(compare).toHaveBeenCalledTimes(4);
    for (const [a, b] of compare.mock.calls) {
      expect([(a as Buffer).byteLength, (b as Buffer).byteLength]).toEqual([32, 32]);
      expect(b).toEqual(createHash('sha256').update(TOKEN).digest());
    }
    expect(p.tokenMatches('x')).toBe(false);
    expect(p.tokenMatches(TOKEN)).toBe(true);
  });
});

describe('presentedToken', () => {
  it('reads the Bearer credential, else the cookie, else nothing', () => {
    expect(presentedToken({ authorization: 'Bearer abc' })).toBe('abc');
    expect(presentedToken({ cookie: `${TOKEN_COOKIE}=def` })).toBe('def');
    expect(presentedToken({ cookie: `${TOKEN_COOKIE}=a%2Bb` })).toBe('a+b');
    expect(presentedToken({ authorization: 'Bearer two words' })).toBeUndefined();
    expect(presentedToken({})).toBeUndefined();
  });
});

describe('generateToken', () => {
  it('makes 32 random bytes, URL-safe, new every time', () => {
    const tokens = Array.from({ length: 50 }, generateToken);
    for (const token of tokens) expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(new Set(tokens).size).toBe(50);
  });
});
