/**
 * The verdict of memory-under-limit.sh: reads what the run left in its folder and prints one row per phase
 * (peak and end memory of the cgroup and of the gateway process, frames sent and unanswered, what they got),
 * then every condition and whether it held. Exit 1 when one did not.
 *
 *   node --import tsx summary.ts --dir DIR [--idle-tolerance-mb 50]
 *
 * DIR holds: samples.jsonl (sampler.ts), results/<phase>.json (phase-result.ts, or the benchmark's own JSON:
 * fuzz-<seed>.json from `bench:fuzz --json`, soak.json from `bench:soak --json`), checks.tsv (conditions the
 * script checked itself: `name<TAB>ok|fail<TAB>detail`) and meta.tsv (`key<TAB>value`, printed as given).
 * Memory is in MiB (2^20 bytes). A phase's peak is the kernel's high-water mark when it rose during that
 * phase (exact), else the largest one-second sample (marked ~).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { countInto, type PhaseResult } from './phase-result.ts';
import type { Sample } from './sample.ts';
import type { Snapshot } from './snapshot.ts';

const { values } = parseArgs({ options: { dir: { type: 'string' }, 'idle-tolerance-mb': { type: 'string', default: '50' } } });
if (!values.dir) {
  process.stderr.write('usage: summary.ts --dir DIR [--idle-tolerance-mb 50]\n');
  process.exit(2);
}
const dir = values.dir;
const toleranceMib = Number(values['idle-tolerance-mb']);
const MIB = 1024 * 1024;

const samples: Sample[] = readFileSync(join(dir, 'samples.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line) as Sample);
const tsv = (name: string) =>
  existsSync(join(dir, name))
    ? readFileSync(join(dir, name), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split('\t'))
    : [];

// ---- what each phase sent and got, whichever tool drove it ----

interface FuzzJson {
  ran: number;
  failed: number;
  unanswered: number;
  internalErrors: number;
  connectionFailures: number;
  crashed: boolean;
  aliveAtEnd: boolean;
  byCategory: Record<string, { outcomes: Record<string, number> }>;
  failures: Array<{ category: string; name: string; expected: string[]; got: string; problems: string[] }>;
}
interface SoakJson {
  load: { sent: number; unanswered: number; outcomes: Record<string, number>; clientFailures: string[]; detectedFps: number };
}

/**
 * A case refused for load that only a decode could have judged: a truncated JPEG passes every check made on
 * receipt (its header is whole), so a busy gateway may refuse it `overloaded` before decoding finds the cut.
 * The fuzz judge runs alone and expects the decode's answer; four runs in parallel make the gateway busy.
 * A bomb or a bad message refused `overloaded` is still wrong: those are judged on receipt, busy or not.
 */
function refusedForLoad(f: FuzzJson['failures'][number]): boolean {
  return /overloaded/.test(f.got) && f.expected.every((e) => /bad_image|detections/.test(e));
}

function fromFuzz(reports: FuzzJson[]): PhaseResult {
  const result: PhaseResult = { phase: 'fuzz', sent: 0, unanswered: 0, outcomes: {}, problems: [], notes: [] };
  let forLoad = 0;
  for (const r of reports) {
    result.sent += r.ran;
    result.unanswered += r.unanswered;
    for (const stats of Object.values(r.byCategory)) for (const [k, v] of Object.entries(stats.outcomes)) countInto(result.outcomes, k, v);
    if (r.internalErrors) result.problems.push(`${r.internalErrors} internal errors`);
    if (r.connectionFailures) result.problems.push(`${r.connectionFailures} connection failures`);
    if (r.crashed || !r.aliveAtEnd) result.problems.push('the gateway stopped answering during the fuzz run');
    const wrong = r.failures.filter((f) => !refusedForLoad(f));
    forLoad += r.failures.length - wrong.length;
    for (const f of wrong.slice(0, 5)) result.problems.push(`fuzz ${f.category} "${f.name}": got ${f.got} (${f.problems.join('; ')})`);
    // Only the first 1,000 failures are kept in a report: the rest cannot be told apart, so they count as wrong.
    const unseen = r.failed - r.failures.length;
    const more = Math.max(0, wrong.length - 5) + unseen;
    if (more > 0) result.problems.push(`... ${more} more wrong answers`);
  }
  result.notes.push(
    `${reports.length} runs in parallel, one connection each; ${reports.reduce((n, r) => n + r.failed, 0)} answers the fuzz judge ` +
      `called wrong, of which ${forLoad} were cases only a decode can judge (truncated images, odd valid images) refused overloaded ` +
      'while the gateway was busy: counted right here',
  );
  return result;
}

function fromSoak(soak: SoakJson): PhaseResult {
  // A frame the client held back because a refusal's retryAfterMs said to wait was never sent: not counted as sent.
  const { ['unanswered (held)']: held = 0, ...outcomes } = soak.load.outcomes;
  return {
    phase: 'soak',
    sent: soak.load.sent - held,
    unanswered: soak.load.unanswered,
    outcomes,
    problems: soak.load.clientFailures.map((f) => `client lost its connection: ${f}`),
    notes: [
      `${soak.load.sent} frames due on the clients' schedules, ${held} of them held back as refusals' retryAfterMs asked, ` +
        `the rest sent; detected ${soak.load.detectedFps.toFixed(1)} frames/s`,
    ],
  };
}

const resultsDir = join(dir, 'results');
const files = existsSync(resultsDir) ? readdirSync(resultsDir).filter((f) => f.endsWith('.json')) : [];
const read = <T>(file: string) => JSON.parse(readFileSync(join(resultsDir, file), 'utf8')) as T;
const results = new Map<string, PhaseResult>();
const fuzzFiles = files.filter((f) => /^fuzz-\d+\.json$/.test(f));
if (fuzzFiles.length) results.set('fuzz', fromFuzz(fuzzFiles.map((f) => read<FuzzJson>(f))));
if (files.includes('soak.json')) results.set('soak', fromSoak(read<SoakJson>('soak.json')));
// Loads run side by side in one phase (--combined) leave one result each under that phase's name: added up.
for (const f of files.filter((f) => !fuzzFiles.includes(f) && f !== 'soak.json')) {
  const r = read<PhaseResult>(f);
  const earlier = results.get(r.phase);
  if (!earlier) results.set(r.phase, r);
  else {
    earlier.sent += r.sent;
    earlier.unanswered += r.unanswered;
    for (const [k, v] of Object.entries(r.outcomes)) countInto(earlier.outcomes, k, v);
    earlier.problems.push(...r.problems);
    earlier.notes.push(...r.notes);
  }
}

// ---- memory per phase ----

const mib = (bytes: number | null | undefined) => (bytes === null || bytes === undefined ? '-' : (bytes / MIB).toFixed(0));
const max = (xs: Array<number | null>) => xs.reduce<number | null>((m, x) => (x === null ? m : m === null ? x : Math.max(m, x)), null);
const median = (xs: Array<number | null>) => {
  const v = xs.filter((x): x is number => x !== null).sort((a, b) => a - b);
  return v.length ? v[Math.floor(v.length / 2)]! : null;
};

interface PhaseMemory {
  phase: string;
  seconds: number;
  cgroupPeak: number | null;
  cgroupPeakExact: boolean;
  cgroupEnd: number | null;
  /** Anonymous memory (heaps, buffers): the part of the charge the kernel cannot drop. Largest 1-s sample. */
  anonPeak: number | null;
  rssPeak: number | null;
  rssPeakExact: boolean;
  rssEnd: number | null;
  /**
   * The charge reached the limit (within 1%) in this phase: the kernel reclaimed to stay under it, page cache
   * first, which includes the pages of node's own code (its RSS falls, and they are read again). This
   * machine's kernel reclaims before a charge fails, so memory.failcnt does not count it.
   */
  atLimit: boolean;
  /** The median of the last 3 samples: the level the phase ended at. */
  rssSettled: number | null;
}

const phases: PhaseMemory[] = [];
let previous: Sample | undefined;
for (let i = 0; i < samples.length;) {
  const phase = samples[i]!.phase;
  let j = i;
  while (j < samples.length && samples[j]!.phase === phase) j++;
  const group = samples.slice(i, j);
  const last = group[group.length - 1]!;
  // The kernel's high-water marks only grow: if one rose within the phase, the phase set it.
  const cgroupRose = (last.cgroupPeakBytes ?? 0) > (previous?.cgroupPeakBytes ?? 0);
  const rssRose = (last.hwmBytes ?? 0) > (previous?.hwmBytes ?? 0);
  phases.push({
    phase,
    seconds: last.t - (previous?.t ?? group[0]!.t),
    cgroupPeak: cgroupRose ? last.cgroupPeakBytes : max(group.map((s) => s.cgroupBytes)),
    cgroupPeakExact: cgroupRose,
    cgroupEnd: last.cgroupBytes,
    anonPeak: max(group.map((s) => s.cgroupAnonBytes)),
    rssPeak: rssRose ? last.hwmBytes : max(group.map((s) => s.rssBytes)),
    rssPeakExact: rssRose,
    rssEnd: last.rssBytes,
    rssSettled: median(group.slice(-3).map((s) => s.rssBytes)),
    atLimit:
      group.some((s) => s.limitBytes !== null && (s.cgroupBytes ?? 0) >= s.limitBytes * 0.99) ||
      (cgroupRose && last.limitBytes !== null && (last.cgroupPeakBytes ?? 0) >= last.limitBytes * 0.99),
  });
  previous = last;
  i = j;
}

// ---- where the memory is, at warm idle and 10 s after the load (snapshot.ts) ----

function readSnapshot(name: string): Snapshot | undefined {
  const path = join(dir, 'snapshots', `${name}.json`);
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Snapshot) : undefined;
}
const snapshots = { before: readSnapshot('warm-idle'), later: readSnapshot('idle-after') };

// ---- conditions ----

interface Condition {
  name: string;
  ok: boolean;
  detail: string;
}
const conditions: Condition[] = [];
for (const r of results.values()) {
  conditions.push({ name: `${r.phase}: every frame answered`, ok: r.unanswered === 0, detail: `${r.unanswered} unanswered of ${r.sent}` });
  conditions.push({
    name: `${r.phase}: every answer as expected`,
    ok: r.problems.length === 0,
    detail: r.problems.length
      ? r.problems.slice(0, 8).join(' | ') + (r.problems.length > 8 ? ` | (+${r.problems.length - 8})` : '')
      : 'yes',
  });
}
for (const [name, verdict, detail] of tsv('checks.tsv')) conditions.push({ name: name!, ok: verdict === 'ok', detail: detail ?? '' });
const oomKills = max(samples.map((s) => s.oomKills)) ?? 0;
conditions.push({
  name: 'no OOM kill counted by the cgroup',
  ok: oomKills === 0,
  detail: `memory.oom_control / memory.events oom_kill ${oomKills}`,
});
const warm = phases.find((p) => p.phase === 'warm-idle');
const after = phases.find((p) => p.phase === 'idle-after');
if (warm?.rssSettled && after?.rssSettled) {
  const delta = (after.rssSettled - warm.rssSettled) / MIB;
  conditions.push({
    name: `RSS 10 s after the load within +${toleranceMib} MiB of warm idle`,
    ok: delta <= toleranceMib,
    detail: `warm idle ${mib(warm.rssSettled)} MiB, after ${mib(after.rssSettled)} MiB: ${delta >= 0 ? '+' : ''}${delta.toFixed(0)} MiB`,
  });
} else
  conditions.push({
    name: `RSS 10 s after the load within +${toleranceMib} MiB of warm idle`,
    ok: false,
    detail: 'no reading (the run ended early)',
  });

/** Which kind of memory the process holds more of 10 s after the load than at warm idle (snapshot.ts). */
function whereItWent(): string[] {
  const { before, later } = snapshots;
  if (!before || !later) return ['no memory snapshots to compare (the run ended early)'];
  const diff = (key: keyof Snapshot) => {
    const a = before[key];
    const b = later[key];
    if (a === null || b === null) return '?';
    const d = (b - a) / MIB;
    return `${d >= 0 ? '+' : ''}${d.toFixed(0)}`;
  };
  const native =
    later.anonBytes !== null && before.anonBytes !== null && later.heapTotalBytes !== null && before.heapTotalBytes !== null
      ? later.anonBytes -
        before.anonBytes -
        (later.heapTotalBytes - before.heapTotalBytes) -
        ((later.externalBytes ?? 0) - (before.externalBytes ?? 0))
      : null;
  return [
    `warm idle: RSS ${mib(before.rssBytes)} MiB (anonymous ${mib(before.anonBytes)}, file-backed ${mib(before.fileBytes)}; main V8 heap ${mib(before.heapTotalBytes)}, external ${mib(before.externalBytes)})`,
    `10 s after the load: RSS ${mib(later.rssBytes)} MiB (anonymous ${mib(later.anonBytes)}, file-backed ${mib(later.fileBytes)}; main V8 heap ${mib(later.heapTotalBytes)}, external ${mib(later.externalBytes)})`,
    `difference: RSS ${diff('rssBytes')} MiB = anonymous ${diff('anonBytes')} (main V8 heap ${diff('heapTotalBytes')}, external ${diff('externalBytes')}, ` +
      `native and worker heaps ${native === null ? '?' : `${native >= 0 ? '+' : ''}${(native / MIB).toFixed(0)}`}) + file-backed ${diff('fileBytes')}`,
  ];
}

// RSS alone can flatter: when the charge reaches the limit the kernel drops file-backed pages (node's own
// code) from the process, and RSS falls while the anonymous memory the load left behind stays.
const anonBefore = snapshots.before?.anonBytes;
const anonLater = snapshots.later?.anonBytes;
if (anonBefore && anonLater) {
  const delta = (anonLater - anonBefore) / MIB;
  conditions.push({
    name: `anonymous memory 10 s after the load within +${toleranceMib} MiB of warm idle`,
    ok: delta <= toleranceMib,
    detail: `warm idle ${mib(anonBefore)} MiB, after ${mib(anonLater)} MiB: ${delta >= 0 ? '+' : ''}${delta.toFixed(0)} MiB (smaps_rollup Anonymous)`,
  });
} else
  conditions.push({
    name: `anonymous memory 10 s after the load within +${toleranceMib} MiB of warm idle`,
    ok: false,
    detail: 'no snapshot',
  });

// ---- report ----

const outcomesText = (outcomes: Record<string, number>) =>
  Object.entries(outcomes)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
const rows = phases.map((p) => {
  const r = results.get(p.phase);
  return [
    p.phase,
    p.seconds.toFixed(0),
    `${p.cgroupPeakExact ? '' : '~'}${mib(p.cgroupPeak)}`,
    mib(p.cgroupEnd),
    `~${mib(p.anonPeak)}`,
    `${p.rssPeakExact ? '' : '~'}${mib(p.rssPeak)}`,
    mib(p.rssEnd),
    p.atLimit ? 'yes' : '',
    r ? String(r.sent) : '',
    r ? String(r.unanswered) : '',
    r ? outcomesText(r.outcomes) : '',
  ];
});
const header = [
  'phase',
  's',
  'cgroup peak',
  'cgroup end',
  'anon peak',
  'RSS peak',
  'RSS end',
  'at limit',
  'sent',
  'unanswered',
  'outcomes',
];
const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => (c === header.length - 1 ? 0 : r[c]!.length))));
const line = (cells: string[]) => cells.map((cell, c) => (c === cells.length - 1 ? cell : cell.padEnd(widths[c]!))).join('  ');

const out: string[] = [];
for (const [key, value] of tsv('meta.tsv')) out.push(`${key}: ${value}`);
const overall = { cgroup: max(samples.map((s) => s.cgroupPeakBytes)), rss: max(samples.map((s) => s.hwmBytes)) };
out.push(
  `whole run: cgroup peak ${mib(overall.cgroup)} MiB, gateway RSS peak (VmHWM) ${mib(overall.rss)} MiB; memory in MiB, ~ = largest 1-s sample`,
  '',
  line(header),
  ...rows.map(line),
  '',
);
for (const r of results.values()) for (const note of r.notes) out.push(`${r.phase}: ${note}`);
out.push('', ...whereItWent());
out.push('');
for (const c of conditions) out.push(`${c.ok ? 'PASS' : 'FAIL'}  ${c.name}: ${c.detail}`);
const failed = conditions.filter((c) => !c.ok).length;
out.push('', failed ? `HELD: no (${failed} condition${failed > 1 ? 's' : ''} failed)` : 'HELD: yes (every condition held)');
process.stdout.write(`${out.join('\n')}\n`);
writeFileSync(join(dir, 'summary.json'), `${JSON.stringify({ phases, results: [...results.values()], conditions, overall }, null, 2)}\n`);
process.exit(failed ? 1 : 0);
