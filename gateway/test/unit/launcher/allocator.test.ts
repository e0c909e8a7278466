import { describe, expect, it } from 'vitest';
import { allocatorSetup, GLIBC_TUNED, JEMALLOC_CONF, jemallocCandidates, type Platform } from '../../../src/launcher/allocator.ts';

const DEBIAN_JEMALLOC = '/usr/lib/x86_64-linux-gnu/libjemalloc.so.2';

function host(options: { env?: NodeJS.ProcessEnv; files?: string[]; platform?: NodeJS.Platform; arch?: string } = {}): Platform {
  const files = new Set(options.files ?? []);
  return { platform: options.platform ?? 'linux', arch: options.arch ?? 'x64', env: options.env ?? {}, exists: (path) => files.has(path) };
}

describe('allocatorSetup', () => {
  it("preloads the system's jemalloc with the image's settings when it is installed", () => {
    const setup = allocatorSetup(host({ files: [DEBIAN_JEMALLOC] }));
    expect(setup.env).toEqual({ LD_PRELOAD: DEBIAN_JEMALLOC, MALLOC_CONF: JEMALLOC_CONF });
    expect(setup.summary).toContain('jemalloc');
  });

  it("looks where each distribution installs it, for the machine's architecture", () => {
    expect(jemallocCandidates('arm64')).toContain('/usr/lib/aarch64-linux-gnu/libjemalloc.so.2');
    const fedora = allocatorSetup(host({ files: ['/usr/lib64/libjemalloc.so.2'] }));
    expect(fedora.env.LD_PRELOAD).toBe('/usr/lib64/libjemalloc.so.2');
  });

  it('tunes glibc when jemalloc is not installed, and says how to get it', () => {
    const setup = allocatorSetup(host());
    expect(setup.env).toEqual(GLIBC_TUNED);
    expect(setup.summary).toContain('libjemalloc2');
  });

  it('leaves an allocator the operator chose alone: LD_PRELOAD or MALLOC_CONF set, or SIGHTLINE_ALLOCATOR=system', () => {
    expect(allocatorSetup(host({ env: { LD_PRELOAD: '/opt/libtcmalloc.so' }, files: [DEBIAN_JEMALLOC] })).env).toEqual({});
    expect(allocatorSetup(host({ env: { MALLOC_CONF: 'narenas:1' }, files: [DEBIAN_JEMALLOC] })).env).toEqual({});
    expect(allocatorSetup(host({ env: { SIGHTLINE_ALLOCATOR: 'system' }, files: [DEBIAN_JEMALLOC] })).env).toEqual({});
  });

  it('keeps a MALLOC_* variable already set over its tuned value', () => {
    const setup = allocatorSetup(host({ env: { SIGHTLINE_ALLOCATOR: 'glibc', MALLOC_ARENA_MAX: '4' }, files: [DEBIAN_JEMALLOC] }));
    expect(setup.env.MALLOC_ARENA_MAX).toBeUndefined();
  });

  it('glibc on request, even where jemalloc is installed', () => {
    expect(allocatorSetup(host({ env: { SIGHTLINE_ALLOCATOR: 'glibc' }, files: [DEBIAN_JEMALLOC] })).env).toEqual(GLIBC_TUNED);
  });

  it('refuses jemalloc on request where it is not installed, and a choice it does not know', () => {
    expect(() => allocatorSetup(host({ env: { SIGHTLINE_ALLOCATOR: 'jemalloc' } }))).toThrow(/apt install libjemalloc2/);
    expect(() => allocatorSetup(host({ env: { SIGHTLINE_ALLOCATOR: 'tcmalloc' } }))).toThrow(/auto, jemalloc, glibc, system/);
  });

  it('changes nothing outside Linux, where LD_PRELOAD and the MALLOC_* variables do not apply', () => {
    expect(allocatorSetup(host({ platform: 'darwin', files: [DEBIAN_JEMALLOC] })).env).toEqual({});
    expect(() => allocatorSetup(host({ platform: 'darwin', env: { SIGHTLINE_ALLOCATOR: 'glibc' } }))).toThrow(/Linux/);
  });
});
