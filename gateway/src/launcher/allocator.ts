/**
 * The memory allocator the gateway runs on under `pnpm start`, set through the environment before node
 * starts (the only moment it can be). The production image preloads jemalloc; glibc's malloc, which node
 * uses otherwise, keeps what decoding freed in per-thread arenas, so a gateway that survived hostile
 * input stays hundreds of MB above its warm level (docs/RELIABILITY.md, *Where the memory goes*). Chosen
 * by SIGHTLINE_ALLOCATOR:
 *
 *   auto      (default) jemalloc when the system has it (Debian/Ubuntu: libjemalloc2), else glibc tuned
 *   jemalloc  jemalloc, or an error when it is not installed
 *   glibc     glibc tuned (GLIBC_TUNED): two arenas, large blocks mapped apart
 *   system    the environment as it is
 *
 * An LD_PRELOAD or MALLOC_CONF already set is the operator's choice: `auto` then changes nothing.
 */
import { existsSync } from 'node:fs';

export const ALLOCATOR_ENV = 'SIGHTLINE_ALLOCATOR';
export const ALLOCATOR_CHOICES = ['auto', 'jemalloc', 'glibc', 'system'] as const;
export type AllocatorChoice = (typeof ALLOCATOR_CHOICES)[number];

/** The image's settings (Dockerfile): dirty pages decay within a second, purged by a background thread. */
export const JEMALLOC_CONF = 'background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0';

/**
 * glibc where jemalloc is not installed, measured under `pnpm start` (docs/RELIABILITY.md, *Where the memory
 * goes*): two arenas instead of eight per core, so what one thread freed is reused by the others rather
 * than kept resident in an arena of its own; and a fixed 4 MiB mmap threshold, so a large decode's buffers
 * (a 12-16 MP image: tens of MB) are mapped apart and unmapped when freed. By default glibc raises that
 * threshold to the largest block freed (up to 32 MiB), after which such buffers stay in the arenas. 4 MiB,
 * not lower: a camera frame's buffers (about 1 MB) are reused from the heap as before, where a 128 KiB
 * threshold maps each afresh (+0.6 ms of CPU a frame in page faults, measured).
 */
export const GLIBC_TUNED: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: '2',
  MALLOC_MMAP_THRESHOLD_: String(4 * 1024 * 1024),
};

/** Debian's multiarch folder for each CPU node runs on. */
const MULTIARCH: Partial<Record<string, string>> = {
  x64: 'x86_64-linux-gnu',
  arm64: 'aarch64-linux-gnu',
  arm: 'arm-linux-gnueabihf',
  ppc64: 'powerpc64le-linux-gnu',
  s390x: 's390x-linux-gnu',
  riscv64: 'riscv64-linux-gnu',
};

/** Where distributions install jemalloc's shared library: Debian and Ubuntu, Fedora and RHEL, Arch and Alpine, a local build. */
export function jemallocCandidates(arch: string): string[] {
  const triplet = MULTIARCH[arch];
  return [
    ...(triplet ? [`/usr/lib/${triplet}/libjemalloc.so.2`, `/lib/${triplet}/libjemalloc.so.2`] : []),
    '/usr/lib64/libjemalloc.so.2',
    '/usr/lib/libjemalloc.so.2',
    '/usr/local/lib/libjemalloc.so.2',
  ];
}

export interface AllocatorSetup {
  /** What the gateway runs on, in a few words, for the launcher's start-up line. */
  summary: string;
  /** Added to the gateway's environment. */
  env: Record<string, string>;
}

export interface Platform {
  platform: NodeJS.Platform;
  arch: string;
  env: NodeJS.ProcessEnv;
  exists: (path: string) => boolean;
}

const thisPlatform = (): Platform => ({ platform: process.platform, arch: process.arch, env: process.env, exists: existsSync });

export function allocatorSetup(host: Platform = thisPlatform()): AllocatorSetup {
  const choice = (host.env[ALLOCATOR_ENV] || 'auto') as AllocatorChoice;
  if (!ALLOCATOR_CHOICES.includes(choice)) {
    throw new Error(`${ALLOCATOR_ENV}=${host.env[ALLOCATOR_ENV]}: expected one of ${ALLOCATOR_CHOICES.join(', ')}`);
  }
  const system = { summary: 'the system allocator, environment unchanged', env: {} };
  if (choice === 'system') return system;
  if (host.platform !== 'linux') {
    // LD_PRELOAD and the MALLOC_* variables are glibc's and Linux's; elsewhere the system's allocator stays.
    if (choice === 'auto') return system;
    throw new Error(`${ALLOCATOR_ENV}=${choice} needs Linux`);
  }
  if (choice === 'auto' && (host.env.LD_PRELOAD || host.env.MALLOC_CONF)) {
    return { summary: 'the allocator LD_PRELOAD / MALLOC_CONF already set', env: {} };
  }
  const jemalloc = jemallocCandidates(host.arch).find((path) => host.exists(path));
  if (choice === 'jemalloc' && !jemalloc) {
    throw new Error(
      `${ALLOCATOR_ENV}=jemalloc, but no libjemalloc.so.2 in ${jemallocCandidates(host.arch).join(', ')} (Debian: apt install libjemalloc2)`,
    );
  }
  if (jemalloc && choice !== 'glibc') {
    const preload = host.env.LD_PRELOAD ? `${jemalloc}:${host.env.LD_PRELOAD}` : jemalloc;
    return { summary: `jemalloc (${jemalloc})`, env: { LD_PRELOAD: preload, MALLOC_CONF: host.env.MALLOC_CONF ?? JEMALLOC_CONF } };
  }
  // A MALLOC_* variable already set wins over its tuned value.
  const effective = Object.keys(GLIBC_TUNED).map((key) => `${key}=${host.env[key] ?? GLIBC_TUNED[key]}`);
  const hint = choice === 'auto' ? ' (no libjemalloc.so.2 on this system: apt install libjemalloc2)' : '';
  return {
    summary: `glibc malloc, ${effective.join(' ')}${hint}`,
    env: Object.fromEntries(Object.entries(GLIBC_TUNED).filter(([key]) => host.env[key] === undefined)),
  };
}
