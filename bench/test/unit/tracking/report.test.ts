import { describe, expect, it } from 'vitest';
import type { MotMetrics } from '../../../tracking/python-tools.ts';
import { goals, renderReport, type RunKey, type TrackingReport } from '../../../tracking/report.ts';

const metrics = (idf1: number, mota: number): MotMetrics => ({
  idf1,
  mota,
  motp: 0.2,
  num_switches: 3,
  num_false_positives: 10,
  num_misses: 20,
  num_objects: 300,
  num_unique_objects: 8,
  mostly_tracked: 5,
  idtp: 250,
  idfp: 30,
  idfn: 50,
});

function report(scores: Record<string, readonly [number, number]>): TrackingReport {
  return {
    seeds: [1],
    runs: Object.entries(scores).map(([name, [idf1, mota]]) => {
      const [tracker, lag] = name.split('@') as [RunKey['tracker'], string];
      const m = metrics(idf1, mota);
      return { key: { tracker, lag: Number(lag) }, overall: m, perSequence: { A: m }, perRun: { 'A seed 1': m } };
    }),
    speed: { objects: 50, frames: 100, repeats: 1, meanMs: 0.1, p50Ms: 0.1, p99Ms: 0.2, tracks: 50 },
  };
}

describe('tracking report', () => {
  const base = {
    'sort@0': [0.8, 0.8],
    'bytetrack@0': [0.75, 0.82],
    'ocsort@0': [0.5, 0.4],
    'sort@3': [0.7, 0.6],
    'bytetrack@3': [0.65, 0.62],
    'ocsort@3': [0.4, 0.3],
  } as const;

  it('checks the goals against the best baseline of each figure', () => {
    const met = goals(report({ ...base, 'sightline@0': [0.85, 0.82], 'sightline@3': [0.8, 0.67], 'sightline-raw@3': [0.7, 0.6] }));
    expect(met.map((g) => g.met)).toEqual([true, true, true]);
    expect(met[1]!.text).toContain('best baseline ByteTrack 0.820');
    expect(met[0]!.text).toContain('holds on 1 of 1');
    const missed = goals(report({ ...base, 'sightline@0': [0.79, 0.9], 'sightline@3': [0.8, 0.66], 'sightline-raw@3': [0.7, 0.6] }));
    expect(missed.map((g) => g.met)).toEqual([false, true, false]);
  });

  it('renders the tables for the terminal and the docs section', () => {
    const { console, markdown } = renderReport(
      report({ ...base, 'sightline@0': [0.85, 0.82], 'sightline@3': [0.8, 0.67], 'sightline-raw@3': [0.7, 0.6] }),
    );
    expect(markdown.startsWith('## Tracking\n')).toBe(true);
    expect(markdown).toContain('| Sightline, no prediction | 3 | 0.700 | 0.600 |');
    expect(console).toContain('met: lag 3, MOTA');
  });
});
