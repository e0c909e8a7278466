/**
 * Samples a container's memory once a second, for memory-under-limit.sh: its cgroup's charge (what the
 * kernel compares with `--memory`, page cache included) and the gateway process's RSS, tagged with the phase
 * the run is in (the script writes the phase's name into a file; it is read at every tick).
 *
 *   node --import tsx sampler.ts --cgroup DIR --pid PID --phase-file FILE --out FILE.jsonl [--interval-ms 1000]
 *
 * One JSON line per tick: t (s since start), phase, and in bytes: cgroup usage, the cgroup's own peak so far
 * (`memory.peak`, `memory.max_usage_in_bytes`), anon and file pages, its limit, and the process's VmRSS and
 * VmHWM; the OOM kills the cgroup counted (sample.ts). Works with cgroup v2 and v1 (this machine's memory controller is v1). A value
 * that cannot be read is null: after the process ended, the ticks go on with its fields null.
 */
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Sample } from './sample.ts';

const { values } = parseArgs({
  options: {
    cgroup: { type: 'string' },
    pid: { type: 'string' },
    'phase-file': { type: 'string' },
    out: { type: 'string' },
    'interval-ms': { type: 'string', default: '1000' },
  },
});
if (!values.cgroup || !values.pid || !values['phase-file'] || !values.out) {
  process.stderr.write('usage: sampler.ts --cgroup DIR --pid PID --phase-file FILE --out FILE.jsonl [--interval-ms 1000]\n');
  process.exit(2);
}
const cgroup = values.cgroup;
const pid = Number(values.pid);
const phaseFile = values['phase-file'];
const out = values.out;
const intervalMs = Number(values['interval-ms']);

const v2 = existsSync(join(cgroup, 'memory.current'));
/** Where each figure is, in cgroup v2 and v1: a file of one number, a key of memory.stat, or a `key value` line of a file. */
const files = v2
  ? {
      usage: 'memory.current',
      peak: 'memory.peak',
      anon: 'anon',
      file: 'file',
      oomKills: { file: 'memory.events', key: 'oom_kill' },
      limit: 'memory.max',
    }
  : {
      usage: 'memory.usage_in_bytes',
      peak: 'memory.max_usage_in_bytes',
      anon: 'total_rss',
      file: 'total_cache',
      oomKills: { file: 'memory.oom_control', key: 'oom_kill' },
      limit: 'memory.limit_in_bytes',
    };

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function readNumber(name: string): number | null {
  const text = read(join(cgroup, name));
  const n = text === undefined ? Number.NaN : Number(text.trim());
  return Number.isFinite(n) ? n : null;
}

/** A `key value` line of a flat-keyed cgroup file (memory.stat, memory.events, memory.oom_control). */
function keyed(text: string | undefined, key: string): number | null {
  const match = text?.match(new RegExp(`^${key} (\\d+)$`, 'm'));
  return match ? Number(match[1]) : null;
}

/** VmRSS / VmHWM of /proc/PID/status, in bytes (the file says kB). */
function statusBytes(status: string | undefined, key: string): number | null {
  const match = status?.match(new RegExp(`^${key}:\\s+(\\d+) kB$`, 'm'));
  return match ? Number(match[1]) * 1024 : null;
}

const started = performance.now();
writeFileSync(out, '');

function tick(): void {
  const stat = read(join(cgroup, 'memory.stat'));
  const status = read(`/proc/${pid}/status`);
  const sample: Sample = {
    t: Math.round(performance.now() - started) / 1000,
    phase: read(phaseFile)?.trim() ?? '',
    cgroupBytes: readNumber(files.usage),
    cgroupPeakBytes: readNumber(files.peak),
    cgroupAnonBytes: keyed(stat, files.anon),
    cgroupFileBytes: keyed(stat, files.file),
    oomKills: keyed(read(join(cgroup, files.oomKills.file)), files.oomKills.key),
    limitBytes: readNumber(files.limit),
    rssBytes: statusBytes(status, 'VmRSS'),
    hwmBytes: statusBytes(status, 'VmHWM'),
  };
  appendFileSync(out, `${JSON.stringify(sample)}\n`);
}

tick();
const timer = setInterval(tick, intervalMs);
for (const signal of ['SIGTERM', 'SIGINT'] as const)
  process.once(signal, () => {
    clearInterval(timer);
    tick();
    process.exit(0);
  });
