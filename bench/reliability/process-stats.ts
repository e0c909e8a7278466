/** What Linux says about a process: its resident memory (/proc/<pid>/status) and whether it still runs. */
import { readFileSync } from 'node:fs';

/** VmRSS in kB from the text of /proc/<pid>/status; undefined when absent. */
export function parseVmRssKb(status: string): number | undefined {
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  return match ? Number(match[1]) : undefined;
}

/** Resident set size of `pid` in kB, or undefined when the process is gone (or this is not Linux). */
export function readRssKb(pid: number): number | undefined {
  try {
    return parseVmRssKb(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return undefined;
  }
}

export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export const mb = (kb: number | undefined): string => (kb === undefined ? '-' : `${(kb / 1024).toFixed(0)} MB`);
