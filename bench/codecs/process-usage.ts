/**
 * CPU time of processes the benchmark does not hold a handle on (Linux /proc): the encoders it ran and
 * waited for (its reaped children), and the gateway's ffmpeg decoder of the stream being measured.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** USER_HZ: the clock of /proc/<pid>/stat's times, 100 on every Linux ABI Node runs on. */
const TICKS_PER_SECOND = 100;

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses). */
function statFields(pid: number | 'self'): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/**
 * User + system CPU time, in ms (10 ms resolution), of this process's children that have ended and been
 * waited for (cutime + cstime): what a command run with execFile cost, read before and after it.
 */
export function reapedChildrenCpuMs(): number {
  const fields = statFields('self');
  if (!fields) return Number.NaN;
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / TICKS_PER_SECOND;
}

/** Pids of the live processes whose parent is `parent` and whose command name is `name`. */
export function childProcesses(parent: number, name: string): number[] {
  const found: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return found;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const fields = statFields(pid);
    if (!fields || Number(fields[1]) !== parent) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === name) found.push(pid);
    } catch {
      // gone in between
    }
  }
  return found;
}
