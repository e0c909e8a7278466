import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, loadConfig } from '../src/config.ts';

describe('configuration', () => {
  it('uses the defaults when nothing is set', () => {
    expect(loadConfig([], {})).toEqual(DEFAULT_CONFIG);
    expect(DEFAULT_CONFIG.port).toBe(8080);
  });

  it('reads environment variables and lets flags override them', () => {
    const env = { PORT: '9000', SIGHTLINE_THREADS: '1', SIGHTLINE_MODEL: 'blazeface-back-256', SIGHTLINE_QUEUE_LENGTH: '0' };
    const config = loadConfig(['--port', '9001', '--max-in-flight', '4'], env);
    expect(config).toMatchObject({ port: 9001, threads: 1, defaultModel: 'blazeface-back-256', maxInFlight: 4, queueLength: 0 });
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig([], { PORT: '' }).port).toBe(8080);
  });

  it('names every invalid setting', () => {
    expect(() => loadConfig([], { PORT: 'eighty', SIGHTLINE_THRESHOLD: '2' })).toThrow(/PORT.*SIGHTLINE_THRESHOLD|SIGHTLINE_THRESHOLD.*PORT/);
    expect(() => loadConfig(['--max-in-flight', '0'], {})).toThrow(/SIGHTLINE_MAX_IN_FLIGHT/);
    expect(() => loadConfig([], { LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
  });
});
