/**
 * How the client gets into a gateway that asks for more than a URL (docs/SECURITY.md): the access token,
 * sent as `Authorization: Bearer` on the WebSocket upgrade and on every HTTP request, and which
 * certificate to trust over HTTPS: the system's CAs, a file (--ca, e.g. the self-signed certificate an
 * exposed gateway keeps), or none at all (--insecure).
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import tls, { type PeerCertificate } from 'node:tls';

export interface ClientAccess {
  token: string | undefined;
  /** PEM certificate(s) trusted instead of the system's CAs. */
  ca: Buffer | undefined;
  /** Do not verify the gateway's certificate at all. */
  insecure: boolean;
  /**
   * The name the certificate must carry when the client connects through its link proxy (127.0.0.1):
   * the gateway's own host, not the proxy's.
   */
  verifyHost?: string | undefined;
  /**
   * The Host header to send when the client reaches the gateway at another address (the packet path's relay):
   * the gateway's own host and port, since a gateway answers only requests for the names it serves (DNS
   * rebinding protection).
   */
  hostHeader?: string | undefined;
}

/** Reads the --ca file once per run, so every connection trusts the same bytes. */
export function loadAccess(options: { token: string | undefined; caFile: string | undefined; insecure: boolean }): ClientAccess {
  return { token: options.token, ca: options.caFile === undefined ? undefined : readFileSync(options.caFile), insecure: options.insecure };
}

/** Headers every request and upgrade carries: the token, and the gateway's own Host when reached through a relay. */
export function authHeaders(access: ClientAccess | undefined): Record<string, string> {
  return {
    ...(access?.hostHeader !== undefined ? { Host: access.hostHeader } : {}),
    ...(access?.token ? { Authorization: `Bearer ${access.token}` } : {}),
  };
}

/** Options for tls.connect / https.request; empty for the defaults (system CAs, host name checked). */
export function tlsOptions(access: ClientAccess | undefined): tls.ConnectionOptions {
  if (!access) return {};
  const options: tls.ConnectionOptions = {};
  if (access.ca) options.ca = access.ca;
  if (access.insecure) options.rejectUnauthorized = false;
  const host = access.verifyHost;
  if (host !== undefined) {
    // Not `servername`: SNI must not carry an IP address, and the gateway's own address is often one.
    options.checkServerIdentity = (_name: string, cert: PeerCertificate) => tls.checkServerIdentity(host, cert);
    if (!isIP(host)) options.servername = host;
  }
  return options;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** What the user should know before the run: said on stderr, never silently. */
export function accessWarnings(url: string, options: { token: string | undefined; insecure: boolean }): string[] {
  const warnings: string[] = [];
  if (options.insecure)
    warnings.push(
      `--insecure: the certificate of ${new URL(url).host} is not verified; anyone in between can read the frames and the token`,
    );
  const target = new URL(url);
  if (options.token && target.protocol === 'http:' && !LOOPBACK.has(target.hostname)) {
    warnings.push(`the access token is sent in clear over http:// to ${target.host}`);
  }
  return warnings;
}

/** A hint for an answer that says the token is missing or wrong. */
export function unauthorizedHint(token: string | undefined): string {
  return token
    ? 'the gateway refused the access token (check --token / SIGHTLINE_TOKEN)'
    : 'the gateway asks for an access token: give --token or set SIGHTLINE_TOKEN';
}

/** TLS errors that mean "this certificate is not one the client trusts", by Node's error codes. */
const UNTRUSTED_CERTIFICATE = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_HAS_EXPIRED',
]);

/** A hint for an error of an https:// connection, or '' when it is not about the certificate. */
export function certificateHint(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && UNTRUSTED_CERTIFICATE.has(code)
    ? " (the gateway's certificate is not trusted: give --ca <its certificate, e.g. $SIGHTLINE_DATA_DIR/tls/cert.pem> or --insecure)"
    : '';
}
