/**
 * The sentences under each table: the A/B's after / before ratios, and the engine preset's answers to issue
 * 21 (the best Sightline configuration against the OpenCV peer on the matrix's targets, and what the hop to
 * a remote engine costs at one client). Pure: pooled figures in, markdown bullets out.
 */
import type { RunSummary } from '../client/report.ts';
import { ISSUE_TARGETS, type Targets } from '../matrix/peer-comparison.ts';
import type { ServerResults } from './tables.ts';
import { ms, ratio } from '../report.ts';

const one = (s: ServerResults): RunSummary => s.cells.one.summary;
const six = (s: ServerResults): RunSummary => s.cells.six.summary;
const verdict = (met: boolean) => (met ? '**met**' : '**not met**');
const signedMs = (v: number) => (Number.isFinite(v) ? `${v >= 0 ? '+' : ''}${ms(v)} ms` : '-');

export function abLines(servers: readonly ServerResults[]): string[] {
  const before = servers.find((s) => s.role === 'before');
  const after = servers.find((s) => s.role === 'after');
  if (!before || !after) return [];
  const line = (what: string, a: number, b: number, unit: string, better: string) =>
    `- ${what}: after ${ms(a)}${unit} / before ${ms(b)}${unit} = **${ratio(a, b)}** (${better})`;
  return [
    line('1 client, p50', one(after).latency.p50, one(before).latency.p50, ' ms', 'below 1: the change made it faster'),
    line('6 clients, detected frames/s', six(after).throughputFps, six(before).throughputFps, '', 'above 1: the change detects more'),
    line('6 clients, p95', six(after).latency.p95, six(before).latency.p95, ' ms', 'below 1: the change made the tail shorter'),
  ];
}

/** The Sightline row best on `value` (NaN never wins). */
function best(rows: readonly ServerResults[], value: (s: ServerResults) => number, better: 'lower' | 'higher'): ServerResults | undefined {
  let found: ServerResults | undefined;
  for (const s of rows) {
    const v = value(s);
    if (!Number.isFinite(v)) continue;
    if (!found || (better === 'lower' ? v < value(found) : v > value(found))) found = s;
  }
  return found;
}

export function engineLines(servers: readonly ServerResults[], targets: Targets = ISSUE_TARGETS): string[] {
  const sightline = servers.filter((s) => s.role === 'local' || s.role === 'remote');
  const peer = servers.find((s) => s.role === 'peer');
  const lines: string[] = [];
  if (peer) {
    const fps = (s: ServerResults) => six(s).throughputFps;
    const top = best(sightline, fps, 'higher');
    if (top) {
      const each = sightline.map((s) => `${s.name} ${ratio(fps(s), fps(peer))}`).join('; ');
      lines.push(
        `- 6 clients, detected frames/s: best Sightline configuration (${top.name}) ${ms(fps(top))} / ${peer.name} ${ms(fps(peer))} = ` +
          `**${ratio(fps(top), fps(peer))}**, target at least ${targets.throughputRatio}x: ${verdict(fps(top) >= targets.throughputRatio * fps(peer))}. Each: ${each}.`,
      );
    }
    const p50 = (s: ServerResults) => one(s).latency.p50;
    const fastest = best(sightline, p50, 'lower');
    if (fastest) {
      const each = sightline.map((s) => `${s.name} ${ratio(p50(s), p50(peer))}`).join('; ');
      lines.push(
        `- 1 client, p50: best Sightline configuration (${fastest.name}) ${ms(p50(fastest))} ms / ${peer.name} ${ms(p50(peer))} ms = ` +
          `**${ratio(p50(fastest), p50(peer))}**, target at most ${targets.p50Ratio}x: ${verdict(p50(fastest) <= targets.p50Ratio * p50(peer))}. Each: ${each}.`,
      );
    }
  }
  // The local reference: the first local row (every frame alone, as the remote rows' gateway sends them).
  const local = sightline.find((s) => s.role === 'local');
  const remote = sightline.filter((s) => s.role === 'remote');
  if (local && remote.length) {
    const hops = remote.map((s) => `${s.name} ${signedMs(one(s).latency.p50 - one(local).latency.p50)}`).join('; ');
    lines.push(`- The remote hop at 1 client (remote p50 minus ${local.name} p50 ${ms(one(local).latency.p50)} ms): ${hops}.`);
  }
  return lines;
}
