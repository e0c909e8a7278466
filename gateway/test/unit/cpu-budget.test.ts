import { describe, expect, it } from 'vitest';
import { cgroupCpuQuota, cpuBudget, parseCfsQuota, parseCpuMax, type ReadText } from '../../src/cpu-budget.ts';

/** A fake file system: path -> content; anything else is absent. */
const files =
  (entries: Record<string, string>): ReadText =>
  (path) =>
    entries[path];

describe('parseCpuMax', () => {
  it('reads quota over period, in CPUs', () => {
    expect(parseCpuMax('100000 100000\n')).toBe(1);
    expect(parseCpuMax('150000 100000')).toBe(1.5);
    expect(parseCpuMax('50000 100000')).toBe(0.5);
  });

  it('is undefined when unlimited or unreadable', () => {
    expect(parseCpuMax('max 100000\n')).toBeUndefined();
    expect(parseCpuMax(undefined)).toBeUndefined();
    expect(parseCpuMax('')).toBeUndefined();
    expect(parseCpuMax('garbage 100000')).toBeUndefined();
  });
});

describe('parseCfsQuota', () => {
  it('reads quota over period; -1 is unlimited', () => {
    expect(parseCfsQuota('200000\n', '100000\n')).toBe(2);
    expect(parseCfsQuota('-1\n', '100000\n')).toBeUndefined();
    expect(parseCfsQuota(undefined, '100000')).toBeUndefined();
  });
});

describe('cgroupCpuQuota', () => {
  it('cgroup v2 in a container (its own cgroup is the root)', () => {
    const read = files({ '/proc/self/cgroup': '0::/\n', '/sys/fs/cgroup/cpu.max': '100000 100000\n' });
    expect(cgroupCpuQuota(read)).toBe(1);
  });

  it('cgroup v2: the smallest limit of the cgroup and its ancestors', () => {
    const read = files({
      '/proc/self/cgroup': '0::/kubepods/pod1/ctr\n',
      '/sys/fs/cgroup/kubepods/pod1/ctr/cpu.max': 'max 100000\n',
      '/sys/fs/cgroup/kubepods/pod1/cpu.max': '250000 100000\n',
      '/sys/fs/cgroup/kubepods/cpu.max': '800000 100000\n',
    });
    expect(cgroupCpuQuota(read)).toBe(2.5);
  });

  it('cgroup v1 (cpu,cpuacct joined), found by the hierarchy that has the cpu controller', () => {
    const read = files({
      '/proc/self/cgroup': '12:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n0::/\n',
      '/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us': '150000\n',
      '/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us': '100000\n',
    });
    expect(cgroupCpuQuota(read)).toBe(1.5);
  });

  it("cgroup v1 showing the host's path, with the container's cgroup mounted at the root", () => {
    const read = files({
      '/proc/self/cgroup': '1:cpu:/docker/abc\n',
      '/sys/fs/cgroup/cpu/cpu.cfs_quota_us': '100000\n',
      '/sys/fs/cgroup/cpu/cpu.cfs_period_us': '100000\n',
    });
    expect(cgroupCpuQuota(read)).toBe(1);
  });

  it('no quota anywhere, or no cgroup at all', () => {
    const unlimited = files({
      '/proc/self/cgroup': '1:cpu:/\n0::/\n',
      '/sys/fs/cgroup/cpu/cpu.cfs_quota_us': '-1\n',
      '/sys/fs/cgroup/cpu/cpu.cfs_period_us': '100000\n',
      '/sys/fs/cgroup/cpu.max': 'max 100000\n',
    });
    expect(cgroupCpuQuota(unlimited)).toBeUndefined();
    expect(cgroupCpuQuota(files({}))).toBeUndefined();
  });
});

describe('cpuBudget', () => {
  const quotaOf = (cpuMax: string) => files({ '/proc/self/cgroup': '0::/\n', '/sys/fs/cgroup/cpu.max': cpuMax });

  it('the cores when no quota is set', () => {
    expect(cpuBudget(8, files({}))).toEqual({ cpus: 8, cores: 8, quota: undefined });
  });

  it('a quota below the cores caps it (docker run --cpus 1 on an 8-core host)', () => {
    expect(cpuBudget(8, quotaOf('100000 100000'))).toEqual({ cpus: 1, cores: 8, quota: 1 });
  });

  it('a fractional quota rounds down, never below 1', () => {
    expect(cpuBudget(8, quotaOf('250000 100000')).cpus).toBe(2);
    expect(cpuBudget(8, quotaOf('50000 100000')).cpus).toBe(1);
  });

  it('a quota above the cores does not add any', () => {
    expect(cpuBudget(2, quotaOf('400000 100000')).cpus).toBe(2);
  });
});
