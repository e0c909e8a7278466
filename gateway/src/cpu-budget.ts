/**
 * How many CPUs this process may keep busy: the defaults of SIGHTLINE_THREADS and SIGHTLINE_WORKERS.
 *
 * `os.availableParallelism()` counts the cores the process may be scheduled on (CPU affinity, so
 * `--cpuset-cpus` is seen), but a container limited by a CPU quota (`docker run --cpus 1`, a Kubernetes
 * CPU limit) still sees every core of the host. Threads sized to the host then share the quota: the
 * kernel throttles the whole container each period, and a frame's latency grows by whole periods. So the
 * quota is read from the cgroup (v2 `cpu.max`, v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us`), on the
 * process's own cgroup and every ancestor (a limit set on a parent applies too), and the smallest wins.
 *
 * A fractional quota is rounded down (at least 1): the fraction is left to the event loop, which does
 * the sockets, codecs and box mapping beside inference.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { posix } from 'node:path';

export interface CpuBudget {
  /** Whole CPUs to size thread pools by, at least 1. */
  cpus: number;
  /** Cores the process may be scheduled on (affinity). */
  cores: number;
  /** The CPU quota in CPUs (fractional), when a cgroup sets one. */
  quota: number | undefined;
}

/** Reads a file as text, or undefined when it is not there (no cgroup, another cgroup version). */
export type ReadText = (path: string) => string | undefined;

const readText: ReadText = (path) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
};

const CGROUP_ROOT = '/sys/fs/cgroup';
/** Where cgroup v1 mounts the cpu controller: alone, or joined with cpuacct. */
const V1_CPU_MOUNTS = [`${CGROUP_ROOT}/cpu`, `${CGROUP_ROOT}/cpu,cpuacct`, `${CGROUP_ROOT}/cpuacct,cpu`];

/** cgroup v2 `cpu.max`: "<quota> <period>" in microseconds, quota `max` when unlimited. CPUs, or undefined. */
export function parseCpuMax(text: string | undefined): number | undefined {
  const [quota, period = '100000'] = (text ?? '').trim().split(/\s+/);
  if (!quota || quota === 'max') return undefined;
  return ratio(Number(quota), Number(period));
}

/** cgroup v1 `cpu.cfs_quota_us` (-1 when unlimited) over `cpu.cfs_period_us`. CPUs, or undefined. */
export function parseCfsQuota(quotaText: string | undefined, periodText: string | undefined): number | undefined {
  if (quotaText === undefined || periodText === undefined) return undefined;
  return ratio(Number(quotaText.trim()), Number(periodText.trim()));
}

function ratio(quota: number, period: number): number | undefined {
  if (!Number.isFinite(quota) || !Number.isFinite(period) || quota <= 0 || period <= 0) return undefined;
  return quota / period;
}

/** The cgroup path of one hierarchy in /proc/self/cgroup: `0::/path` (v2), `N:cpu,cpuacct:/path` (v1). */
function cgroupPath(procSelfCgroup: string, hierarchy: (controllers: string[]) => boolean): string | undefined {
  for (const line of procSelfCgroup.split('\n')) {
    const match = /^(\d+):([^:]*):(.*)$/.exec(line.trim());
    if (match && hierarchy(match[2]!.split(','))) return match[3]!;
  }
  return undefined;
}

/** `/a/b` -> [`/a/b`, `/a`, `/`]: the process's cgroup first, then each ancestor. */
function selfAndAncestors(path: string): string[] {
  const paths: string[] = [];
  for (let current = posix.normalize(`/${path}`); ; current = posix.dirname(current)) {
    paths.push(current);
    if (current === '/') return paths;
  }
}

function smallest(values: (number | undefined)[]): number | undefined {
  const found = values.filter((value): value is number => value !== undefined);
  return found.length ? Math.min(...found) : undefined;
}

/**
 * The CPU quota over the process's cgroup and its ancestors, in CPUs; undefined when none is set.
 * Inside a container the cgroup namespace usually shows the container's own cgroup as `/`; where it shows
 * the host's path while the container's cgroup is mounted at the root, the walk up ends at that root.
 */
export function cgroupCpuQuota(read: ReadText = readText): number | undefined {
  const self = read('/proc/self/cgroup') ?? '';
  const v2 = cgroupPath(self, (controllers) => controllers.length === 1 && controllers[0] === '');
  const v2Quota =
    v2 === undefined ? undefined : smallest(selfAndAncestors(v2).map((dir) => parseCpuMax(read(posix.join(CGROUP_ROOT, dir, 'cpu.max')))));
  if (v2Quota !== undefined) return v2Quota;
  const v1 = cgroupPath(self, (controllers) => controllers.includes('cpu'));
  if (v1 === undefined) return undefined;
  return smallest(
    V1_CPU_MOUNTS.flatMap((mount) =>
      selfAndAncestors(v1).map((dir) =>
        parseCfsQuota(read(posix.join(mount, dir, 'cpu.cfs_quota_us')), read(posix.join(mount, dir, 'cpu.cfs_period_us'))),
      ),
    ),
  );
}

/** Whole CPUs to size thread pools by: the cores this process may run on, capped by its cgroup's quota. */
export function cpuBudget(cores: number = availableParallelism(), read: ReadText = readText): CpuBudget {
  const quota = cgroupCpuQuota(read);
  const cappedCores = Math.max(1, Math.floor(cores));
  const cpus = quota === undefined ? cappedCores : Math.max(1, Math.min(cappedCores, Math.floor(quota)));
  return { cpus, cores: cappedCores, quota };
}
