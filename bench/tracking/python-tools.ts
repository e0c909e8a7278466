/**
 * The Python side of the tracking benchmark: one venv (`tracking`, from requirements.txt beside this
 * file) with roboflow's `trackers` (the baselines) and `motmetrics` (the scorer, whose wheel also ships
 * the TUD ground truths).
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ensurePythonEnv, type PythonEnv } from '@sightline/harness/process';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const run = promisify(execFile);

export const TRACKING_REQUIREMENTS = join(HERE, 'requirements.txt');

export function trackingPython(): Promise<PythonEnv> {
  return ensurePythonEnv({ name: 'tracking', requirements: TRACKING_REQUIREMENTS });
}

async function python(env: PythonEnv, script: string, args: string[]): Promise<string> {
  const { stdout } = await run(env.python, [join(HERE, script), ...args], {
    env: { ...process.env, ...env.env },
    maxBuffer: 64 << 20,
    timeout: 10 * 60_000,
  });
  return stdout;
}

/** The folder of a sequence motmetrics ships (`TUD-Campus`, `TUD-Stadtmitte`): its gt.txt. */
export async function groundTruthPath(env: PythonEnv, sequence: string): Promise<string> {
  return join((await python(env, 'score.py', ['--gt-dir', sequence])).trim(), 'gt.txt');
}

export type BaselineTracker = 'sort' | 'bytetrack' | 'ocsort';

export interface BaselineJob {
  det: string;
  fps: number;
  lastFrame: number;
  tracker: BaselineTracker;
  /** Constructor arguments of the package's tracker class. */
  settings: Record<string, number>;
  /** Lag in frames -> results file. */
  outputs: Record<number, string>;
}

/** Runs the baselines (baselines.py), one process for every job; `jobsFile` is where the job list is written. */
export async function runBaselines(env: PythonEnv, jobs: readonly BaselineJob[], jobsFile: string): Promise<void> {
  writeFileSync(jobsFile, JSON.stringify(jobs));
  await python(env, 'baselines.py', [jobsFile]);
}

export interface ScoreJob {
  name: string;
  /** The groups the run belongs to: each group's runs are also scored together (motmetrics' overall figures). */
  groups: string[];
  gt: string;
  res: string;
}

/** What motmetrics says of one run or group. */
export interface MotMetrics {
  idf1: number;
  mota: number;
  motp: number;
  num_switches: number;
  num_false_positives: number;
  num_misses: number;
  num_objects: number;
  num_unique_objects: number;
  mostly_tracked: number;
  idtp: number;
  idfp: number;
  idfn: number;
}

export interface Scores {
  runs: Record<string, MotMetrics>;
  groups: Record<string, MotMetrics>;
}

export async function score(env: PythonEnv, jobs: readonly ScoreJob[], jobsFile: string): Promise<Scores> {
  writeFileSync(jobsFile, JSON.stringify(jobs));
  return JSON.parse(await python(env, 'score.py', [jobsFile])) as Scores;
}
