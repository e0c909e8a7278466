/**
 * The Python side of the events benchmark: supervision's LineZone behind SORT, ByteTrack and OC-SORT
 * (baselines.py), in the tracking benchmark's venv (`tracking`: supervision 0.31.2, trackers 2.6.1, pinned).
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { PythonEnv } from '@sightline/harness/process';
import type { BaselineTracker } from '../tracking/python-tools.ts';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const run = promisify(execFile);

/** supervision's `Position` names. */
export type SvAnchor = 'TOP_LEFT' | 'TOP_RIGHT' | 'BOTTOM_LEFT' | 'BOTTOM_RIGHT' | 'BOTTOM_CENTER' | 'CENTER';

export interface LineZoneConfig {
  name: string;
  anchors: SvAnchor[];
  /** LineZone's minimum_crossing_threshold: frames on the new side before a crossing counts. */
  threshold: number;
}

/** supervision's anchor configurations: its default (the four corners), the bottom centre, the centre. */
export const ANCHOR_SETS = {
  corners: ['TOP_LEFT', 'TOP_RIGHT', 'BOTTOM_LEFT', 'BOTTOM_RIGHT'],
  'bottom-center': ['BOTTOM_CENTER'],
  center: ['CENTER'],
} as const satisfies Record<string, LineZoneConfig['anchors']>;
/** minimum_crossing_threshold: its default 1, and larger ones (frames on the new side before a crossing counts). */
export const THRESHOLDS = [1, 2, 3, 5] as const;
export const LINE_ZONE_CONFIGS: LineZoneConfig[] = Object.entries(ANCHOR_SETS).flatMap(([name, anchors]) =>
  THRESHOLDS.map((threshold) => ({ name: `${name}/${threshold}`, anchors: [...anchors], threshold })),
);

export interface LineZoneJob {
  det: string;
  fps: number;
  lastFrame: number;
  tracker: BaselineTracker;
  settings: Record<string, number>;
  /** Pixels. */
  lines: Array<{ name: string; start: [number, number]; end: [number, number] }>;
  configs: LineZoneConfig[];
  out: string;
}

/** A crossing as LineZone reports it: `sv` is supervision's own direction. */
export interface LineZoneCrossing {
  config: string;
  line: string;
  frame: number;
  trackId: number;
  sv: 'in' | 'out';
}

/** Runs every job in one Python process; the crossings of each job, in order. */
export async function runLineZones(env: PythonEnv, jobs: readonly LineZoneJob[], jobsFile: string): Promise<LineZoneCrossing[][]> {
  writeFileSync(jobsFile, JSON.stringify(jobs));
  await run(env.python, [join(HERE, 'baselines.py'), jobsFile], {
    env: { ...process.env, ...env.env },
    maxBuffer: 64 << 20,
    timeout: 20 * 60_000,
  });
  return jobs.map((job) => JSON.parse(readFileSync(job.out, 'utf8')) as LineZoneCrossing[]);
}
