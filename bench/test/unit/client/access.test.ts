import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { accessWarnings, authHeaders, certificateHint, loadAccess, tlsOptions, unauthorizedHint } from '../../../client/access.ts';

describe('bench client access', () => {
  it('sends the token as a Bearer header, and nothing without one', () => {
    expect(authHeaders({ token: 't0k3n', ca: undefined, insecure: false })).toEqual({ Authorization: 'Bearer t0k3n' });
    expect(authHeaders({ token: undefined, ca: undefined, insecure: false })).toEqual({});
    expect(authHeaders(undefined)).toEqual({});
    // Through the packet path's relay the gateway is still asked for by its own name.
    expect(authHeaders({ token: 't', ca: undefined, insecure: false, hostHeader: '127.0.0.1:8080' })).toEqual({
      Host: '127.0.0.1:8080',
      Authorization: 'Bearer t',
    });
  });

  it('reads the --ca file once, as bytes to trust', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-access-'));
    try {
      writeFileSync(join(dir, 'cert.pem'), '-----BEGIN CERTIFICATE-----\n');
      const access = loadAccess({ token: 'x', caFile: join(dir, 'cert.pem'), insecure: false });
      expect(access.ca?.toString()).toBe('-----BEGIN CERTIFICATE-----\n');
      expect(tlsOptions(access)).toEqual({ ca: access.ca });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps the defaults unless told: system CAs and the host name checked', () => {
    expect(tlsOptions(undefined)).toEqual({});
    expect(tlsOptions({ token: undefined, ca: undefined, insecure: false })).toEqual({});
    expect(tlsOptions({ token: undefined, ca: undefined, insecure: true })).toEqual({ rejectUnauthorized: false });
  });

  it('through the link proxy, checks the certificate against the gateway, not 127.0.0.1', () => {
    const byName = tlsOptions({ token: undefined, ca: undefined, insecure: false, verifyHost: 'gw.local' });
    expect(byName.servername).toBe('gw.local');
    expect(byName.checkServerIdentity).toBeTypeOf('function');
    // SNI never carries an address; the identity check still does.
    const byAddress = tlsOptions({ token: undefined, ca: undefined, insecure: false, verifyHost: '192.168.1.23' });
    expect(byAddress.servername).toBeUndefined();
    expect(byAddress.checkServerIdentity).toBeTypeOf('function');
  });

  it('warns about --insecure, and about a token in clear beyond this machine', () => {
    expect(accessWarnings('https://gw:8080', { token: 't', insecure: true })[0]).toMatch(
      /--insecure: the certificate of gw:8080 is not verified/,
    );
    expect(accessWarnings('http://192.168.1.23:8080', { token: 't', insecure: false })).toEqual([
      'the access token is sent in clear over http:// to 192.168.1.23:8080',
    ]);
    expect(accessWarnings('http://127.0.0.1:8080', { token: 't', insecure: false })).toEqual([]);
    expect(accessWarnings('https://gw:8080', { token: 't', insecure: false })).toEqual([]);
  });

  it('explains a 401 and an untrusted certificate', () => {
    expect(unauthorizedHint(undefined)).toMatch(/give --token or set SIGHTLINE_TOKEN/);
    expect(unauthorizedHint('wrong')).toMatch(/refused the access token/);
    expect(certificateHint(Object.assign(new Error('self-signed certificate'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }))).toMatch(
      /--ca .* or --insecure/,
    );
    expect(certificateHint(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }))).toBe('');
    expect(certificateHint(undefined)).toBe('');
  });
});
