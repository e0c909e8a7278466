/**
 * The matrix's headline: Sightline against each Python peer, and against the strongest one, on the issue's
 * targets (docs/runs/matrix.md, section 4). Pure: summaries in, sentences out.
 *
 * "Strongest" is decided per measure (the lowest 1-client p50, the most frames/s with 6 clients, the most
 * detected frames/s in the open loop), so every ratio is against the best any peer did on that measure;
 * the strongest peer overall is the one best on most of the three (ties: the 6-client frames/s).
 */
import type { RunSummary } from '../client/report.ts';
import { ms, ratio } from '../report.ts';

export interface ServerFigures {
  name: string;
  /** 1 client, stop-and-wait. */
  one: RunSummary;
  /** 6 clients, stop-and-wait. */
  six: RunSummary;
  /** 6 clients, open loop. */
  open?: RunSummary | undefined;
}

export interface Targets {
  /** Sightline's 1-client p50 at most this times the strongest peer's. */
  p50Ratio: number;
  /** Sightline's 6-client frames/s at least this times the strongest peer's. */
  throughputRatio: number;
  /** Sightline's 6-client frames/s at least this share of the bare decode + inference limit. */
  limitShare: number;
}

export const ISSUE_TARGETS: Targets = { p50Ratio: 0.85, throughputRatio: 1.25, limitShare: 0.85 };

interface Measure {
  title: string;
  value: (f: ServerFigures) => number;
  better: 'lower' | 'higher';
}

export const MEASURES: Measure[] = [
  { title: '1-client p50', value: (f) => f.one.latency.p50, better: 'lower' },
  { title: '6-client frames/s', value: (f) => f.six.throughputFps, better: 'higher' },
  { title: 'open-loop detected frames/s', value: (f) => f.open?.throughputFps ?? Number.NaN, better: 'higher' },
];

/** The peer best on `measure` (NaN values never win), or undefined when none has a value. */
export function bestOn(peers: readonly ServerFigures[], measure: Measure): ServerFigures | undefined {
  let best: ServerFigures | undefined;
  for (const p of peers) {
    const v = measure.value(p);
    if (!Number.isFinite(v)) continue;
    if (!best || (measure.better === 'lower' ? v < measure.value(best) : v > measure.value(best))) best = p;
  }
  return best;
}

/** The peer best on most measures; ties go to the most 6-client frames/s. */
export function strongestPeer(peers: readonly ServerFigures[]): { peer: ServerFigures; wins: string[] } | undefined {
  if (peers.length === 0) return undefined;
  const wins = new Map<ServerFigures, string[]>(peers.map((p) => [p, []]));
  for (const m of MEASURES) {
    const best = bestOn(peers, m);
    if (best) wins.get(best)!.push(m.title);
  }
  const ranked = [...peers].sort((a, b) => wins.get(b)!.length - wins.get(a)!.length || b.six.throughputFps - a.six.throughputFps);
  return { peer: ranked[0]!, wins: wins.get(ranked[0]!)! };
}

const verdict = (met: boolean) => (met ? '**met**' : '**not met**');

/**
 * The comparison as markdown bullet points. `limitFps` is the best bare decode + inference loop of
 * Sightline's runtime (frames/s), NaN when it was not measured.
 */
export function comparisonLines(
  sightline: ServerFigures,
  peers: readonly ServerFigures[],
  limitFps: number,
  targets = ISSUE_TARGETS,
): string[] {
  const lines: string[] = [];
  const strongest = strongestPeer(peers);
  if (strongest) {
    lines.push(
      `- Strongest Python peer in this run: **${strongest.peer.name}** (best peer on ${strongest.wins.length ? strongest.wins.join(', ') : 'the 6-client frames/s'}).`,
    );
  }

  const p50 = MEASURES[0]!;
  const p50Best = bestOn(peers, p50);
  const p50Each = peers.map((p) => `${p.name} ${ms(p.one.latency.p50)} ms (${ratio(sightline.one.latency.p50, p.one.latency.p50)})`);
  lines.push(
    `- 1 client, p50 latency: Sightline ${ms(sightline.one.latency.p50)} ms` +
      (peers.length ? `; ${p50Each.join('; ')}` : '') +
      (p50Best
        ? `. Sightline / strongest (${p50Best.name}): ${ratio(sightline.one.latency.p50, p50.value(p50Best))}, target at most ${targets.p50Ratio}x: ` +
          verdict(sightline.one.latency.p50 <= targets.p50Ratio * p50.value(p50Best)) +
          '.'
        : '.'),
  );

  const fps = MEASURES[1]!;
  const fpsBest = bestOn(peers, fps);
  const fpsEach = peers.map((p) => `${p.name} ${ms(p.six.throughputFps)} (${ratio(sightline.six.throughputFps, p.six.throughputFps)})`);
  lines.push(
    `- 6 clients, frames/s: Sightline ${ms(sightline.six.throughputFps)}` +
      (peers.length ? `; ${fpsEach.join('; ')}` : '') +
      (fpsBest
        ? `. Sightline / strongest (${fpsBest.name}): ${ratio(sightline.six.throughputFps, fps.value(fpsBest))}, target at least ${targets.throughputRatio}x: ` +
          verdict(sightline.six.throughputFps >= targets.throughputRatio * fps.value(fpsBest)) +
          '.'
        : '.'),
  );

  if (Number.isFinite(limitFps)) {
    const share = sightline.six.throughputFps / limitFps;
    lines.push(
      `- 6 clients: Sightline's ${ms(sightline.six.throughputFps)} frames/s are ${(share * 100).toFixed(0)}% of the bare decode + inference ` +
        `limit (${ms(limitFps)} frames/s), target at least ${(targets.limitShare * 100).toFixed(0)}%: ${verdict(share >= targets.limitShare)}.`,
    );
  }

  if (sightline.open) {
    const open = (f: ServerFigures) =>
      f.open ? `${f.name} p95 ${ms(f.open.latency.p95)} ms, ${ms(f.open.throughputFps)} detected frames/s` : `${f.name} not run`;
    lines.push(`- Open loop (latency from the scheduled send time): ${[sightline, ...peers].map(open).join('; ')}.`);
  }
  return lines;
}
