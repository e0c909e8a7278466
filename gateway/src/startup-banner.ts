/**
 * What a person starting the gateway needs to read: the URLs to open (with the token where one is
 * needed), and what TLS and the token are doing. On stderr, so stdout stays one JSON log line per event.
 */
import type { RunningGateway } from './gateway.ts';

export function startupBanner({ access, exposure }: Pick<RunningGateway, 'access' | 'exposure'>, startedInMs: number): string {
  const lines = ['', `  Sightline gateway ready in ${(startedInMs / 1000).toFixed(1)} s`, ''];
  for (const url of access.local) lines.push(`  ➜ Local:   ${url}`);
  for (const url of access.network) lines.push(`  ➜ Network: ${url}`);
  if (!exposure.exposed) lines.push('  ➜ Network: use --host to open it on other devices (a phone on this network)');
  if (exposure.tls) {
    const where =
      exposure.tls.source === 'files'
        ? exposure.tls.certPath
        : `${exposure.tls.source === 'kept' ? 'kept' : 'generated'} in ${exposure.tls.certPath}`;
    lines.push('', `  TLS:   ${exposure.tls.source === 'files' ? 'your certificate' : 'self-signed certificate'}, ${where}`);
    lines.push(`         SHA-256 ${exposure.tls.fingerprint}`);
    if (exposure.tls.source !== 'files')
      lines.push('         browsers warn once; iOS needs a trusted certificate (README: "Open it on your phone")');
  }
  if (exposure.tokenSource === 'generated')
    lines.push('', '  Token: generated for this run; set SIGHTLINE_TOKEN to keep one across restarts');
  if (exposure.exposed && exposure.tokenSource === 'none')
    lines.push('', '  Token: none (SIGHTLINE_AUTH=none): anyone who can reach it can use it');
  lines.push('');
  return lines.join('\n');
}
