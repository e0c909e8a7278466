/**
 * The certificate `pnpm dev` serves with when SIGHTLINE_TLS=auto: the same kept, self-signed one the
 * gateway uses, so a browser that accepted it once accepts both the Vite dev server and the gateway.
 */
import { join } from 'node:path';
import { homedir } from 'node:os';
import { localNetworkNames } from './network-names.ts';
import { resolveTls, type TlsMaterial } from './tls.ts';

export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.SIGHTLINE_DATA_DIR || join(env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'sightline');
}

export async function devCertificate(env: NodeJS.ProcessEnv = process.env): Promise<TlsMaterial | undefined> {
  if (env.SIGHTLINE_TLS !== 'auto') return undefined;
  return resolveTls({ mode: 'auto', dataDir: defaultDataDir(env) }, localNetworkNames());
}
