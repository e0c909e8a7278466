import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveTls } from '../../../src/security/tls.ts';

const names = { dns: ['localhost'], ips: ['127.0.0.1'], lan: [] };

describe('resolveTls (auto)', () => {
  it('generates a certificate into the data directory and keeps it for the next start', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sightline-tls-'));
    const first = await resolveTls({ mode: 'auto', dataDir }, names);
    expect(first?.source).toBe('generated');
    const second = await resolveTls({ mode: 'auto', dataDir }, names);
    expect(second?.source).toBe('kept');
    expect(second?.fingerprint).toBe(first?.fingerprint);
  });

  it('says what to change when the data directory cannot be written (a read-only container without a volume)', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'sightline-tls-'));
    const notADirectory = join(parent, 'file');
    writeFileSync(notADirectory, '');
    await expect(resolveTls({ mode: 'auto', dataDir: notADirectory }, names)).rejects.toThrow(
      /cannot keep the self-signed certificate in .*: make SIGHTLINE_DATA_DIR writable .*SIGHTLINE_TLS_CERT.*SIGHTLINE_TLS=off/,
    );
  });
});
