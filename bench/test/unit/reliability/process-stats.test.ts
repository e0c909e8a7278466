import { describe, expect, it } from 'vitest';
import { isRunning, mb, parseVmRssKb, readRssKb } from '../../../reliability/process-stats.ts';

describe('process figures', () => {
  it('reads VmRSS from /proc/<pid>/status', () => {
    expect(parseVmRssKb('Name:\tnode\nVmPeak:\t 999 kB\nVmRSS:\t  123456 kB\nThreads:\t7\n')).toBe(123456);
    expect(parseVmRssKb('Name:\tzombie\n')).toBeUndefined();
    const own = readRssKb(process.pid);
    if (process.platform === 'linux') expect(own).toBeGreaterThan(10_000);
    expect(mb(2048)).toBe('2 MB');
    expect(mb(undefined)).toBe('-');
  });

  it('knows whether a process runs', () => {
    expect(isRunning(process.pid)).toBe(true);
    expect(isRunning(2 ** 22 + 12_345)).toBe(false);
  });
});
