/**
 * A child process's CPU time and memory, read from /proc (Linux): what a decoder process costs, for the
 * stream's figures and the benchmark. Undefined where /proc is not there or the process is gone.
 */
import { readFileSync } from 'node:fs';

/** clock ticks per second of /proc/<pid>/stat's times: USER_HZ, 100 on every Linux ABI Node runs on. */
const TICKS_PER_SECOND = 100;

/** User + system CPU time of the process so far, in ms (10 ms resolution). */
export function processCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which may itself hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

export interface ProcessMemory {
  /** Resident set size: everything of the process in RAM, its binary's pages included. */
  rssBytes: number;
  /** Its peak. */
  peakRssBytes: number;
  /** Pages only this process has written (heap, frame buffers): what one more stream adds, the binary's pages being shared. */
  privateDirtyBytes: number | undefined;
  /** Proportional set size: its private pages plus its share of the pages it shares (the binary's, among all its processes). */
  pssBytes: number | undefined;
}

export function processMemory(pid: number): ProcessMemory | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (text: string, key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? NaN) * 1024;
    let privateDirtyBytes: number | undefined;
    let pssBytes: number | undefined;
    try {
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      privateDirtyBytes = kib(rollup, 'Private_Dirty');
      pssBytes = kib(rollup, 'Pss');
    } catch {
      privateDirtyBytes = undefined;
    }
    const rssBytes = kib(status, 'VmRSS');
    if (!Number.isFinite(rssBytes)) return undefined;
    return { rssBytes, peakRssBytes: kib(status, 'VmHWM'), privateDirtyBytes, pssBytes };
  } catch {
    return undefined;
  }
}
