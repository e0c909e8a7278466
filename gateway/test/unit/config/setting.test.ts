import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SETTINGS } from '../../../src/config.ts';
import { defaultValues, plainText, setting, settingsCli, shownDefault } from '../../../src/config/setting.ts';

describe('setting rows', () => {
  it('give each setting its own variable and flag', () => {
    const rows = Object.values(SETTINGS);
    expect(new Set(rows.map((row) => row.env)).size).toBe(rows.length);
    expect(new Set(rows.map((row) => row.flag)).size).toBe(rows.length);
  });

  it('refuse a flag that commander would store under another name than the key', () => {
    const rows = { maxThings: setting({ schema: z.coerce.number(), default: 1, flag: '--max-thing <n>', env: 'X', help: 'x' }) };
    expect(() => settingsCli('x', 'x', rows)).toThrow(/maxThings: flag --max-thing <n> would be read as maxThing/);
  });

  it('show a default by its words, as MiB for bytes, grouped when long, and nothing when unset or empty', () => {
    const row = (value: unknown, defaultText?: string) => ({
      schema: z.unknown(),
      default: value,
      defaultText,
      flag: '--x',
      env: 'X',
      help: '',
    });
    expect(shownDefault('threads', row(2, 'CPUs available'))).toBe('CPUs available');
    expect(shownDefault('maxBufferedBytes', row(1024 * 1024))).toBe('1 MiB');
    expect(shownDefault('maxBufferedBytes', row(1500))).toBe('1500');
    expect(shownDefault('maxPixels', row(16_777_216))).toBe('16 777 216');
    expect(shownDefault('heartbeatMs', row(5000))).toBe('5000');
    expect(shownDefault('trustProxy', row([]))).toBeUndefined();
    expect(shownDefault('trustProxy', row(['loopback', '10.0.0.0/8']))).toBe('loopback,10.0.0.0/8');
    expect(shownDefault('token', row(undefined))).toBeUndefined();
  });

  it('leave out the defaults of settings that have none', () => {
    const defaults = defaultValues(SETTINGS);
    expect(defaults).not.toHaveProperty('token');
    expect(defaults).toMatchObject({ port: 8080, allowedOrigins: [] });
  });

  it('print help as plain text with the default and the variable', () => {
    const help = settingsCli('x', 'x', SETTINGS).helpInformation().replace(/\s+/g, ' ');
    expect(help).toContain('(default: 8080, env: PORT)');
    expect(help).toContain("(default: CPUs available, a container's CPU quota included, env: SIGHTLINE_THREADS)");
    expect(help).toContain('(default: host name and pid, env: SIGHTLINE_INSTANCE)');
    expect(help).toContain('(env: SIGHTLINE_TLS_CERT)');
    expect(help).toContain('--host alone (or HOST=0.0.0.0)');
    expect(help).not.toContain('`');
    expect(plainText('`a` and `b`')).toBe('a and b');
  });
});
