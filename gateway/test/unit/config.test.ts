import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_CONFIG, gatewayCli, loadConfig } from '../../src/config.ts';

function withEnv(env: Record<string, string>): void {
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
}

describe('configuration', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('uses the defaults when nothing is set', () => {
    expect(loadConfig([])).toEqual(DEFAULT_CONFIG);
    expect(DEFAULT_CONFIG.port).toBe(8080);
  });

  it('reads environment variables and lets flags override them', () => {
    const env = { PORT: '9000', SIGHTLINE_THREADS: '1', SIGHTLINE_MODEL: 'blazeface-back-256', SIGHTLINE_QUEUE_LENGTH: '0' };
    withEnv(env);
    const config = loadConfig(['--port', '9001', '--max-in-flight', '4']);
    expect(config).toMatchObject({ port: 9001, threads: 1, defaultModel: 'blazeface-back-256', maxInFlight: 4, queueLength: 0 });
  });

  it('treats empty variables as unset', () => {
    withEnv({ PORT: '' });
    expect(loadConfig([]).port).toBe(8080);
  });

  it('names every invalid setting', () => {
    withEnv({ PORT: 'eighty', SIGHTLINE_THRESHOLD: '2' });
    expect(() => loadConfig([])).toThrow(/PORT.*SIGHTLINE_THRESHOLD|SIGHTLINE_THRESHOLD.*PORT/);
    vi.unstubAllEnvs();
    expect(() => loadConfig(['--max-in-flight', '0'])).toThrow(/SIGHTLINE_MAX_IN_FLIGHT/);
    withEnv({ LOG_LEVEL: 'loud' });
    expect(() => loadConfig([])).toThrow(/LOG_LEVEL/);
  });

  it('checks settings against each other, naming the variable', () => {
    expect(() => loadConfig(['--tls-cert', 'cert.pem'])).toThrow(/SIGHTLINE_TLS_CERT: give both the certificate and its key, or neither/);
    expect(loadConfig(['--tls-cert', 'cert.pem', '--tls-key', 'key.pem'])).toMatchObject({ tlsCert: 'cert.pem', tlsKey: 'key.pem' });
    withEnv({ SIGHTLINE_FRAME_DECODE_MB: '300' });
    expect(() => loadConfig([])).toThrow(/SIGHTLINE_FRAME_DECODE_MB: .*SIGHTLINE_DECODE_BUDGET_MB/);
    expect(loadConfig(['--decode-budget-mb', '300']).frameDecodeMb).toBe(300);
  });

  it('reads `--host` alone as every address, and comma-separated lists', () => {
    expect(loadConfig(['--host']).host).toBe('0.0.0.0');
    expect(loadConfig(['--host', '192.0.2.1']).host).toBe('192.0.2.1');
    withEnv({ SIGHTLINE_TRUST_PROXY: 'loopback, 10.0.0.0/8' });
    expect(loadConfig([]).trustProxy).toEqual(['loopback', '10.0.0.0/8']);
  });

  it('skips the `--` that pnpm passes through, and lists every environment variable in --help', () => {
    expect(loadConfig(['--', '--port', '9002']).port).toBe(9002);
    const help = gatewayCli().helpInformation().replace(/\s+/g, ' ');
    for (const name of ['PORT', 'HOST', 'SIGHTLINE_MODEL', 'SIGHTLINE_THREADS', 'SIGHTLINE_MAX_CONNECTIONS', 'LOG_LEVEL']) {
      expect(help).toContain(`env: ${name}`);
    }
  });
});
