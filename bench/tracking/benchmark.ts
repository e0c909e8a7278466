/**
 * `pnpm bench:tracking`: Sightline's tracker beside SORT, ByteTrack and OC-SORT (roboflow's `trackers`)
 * on the same noisy detections of TUD-Campus and TUD-Stadtmitte, scored by motmetrics, answers on time
 * (lag 0) and 3 frames late (what the overlay draws at a latency of 120 ms); plus the tracker's update
 * time with 50 objects. Prints the tables and writes the `## Tracking` section of docs/runs/tracking.md.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Command } from 'commander';
import { formatMotDetections, parseMot } from './mot-file.ts';
import { DEFAULT_NOISE, makeNoisyDetections } from './noisy-detections.ts';
import { groundTruthPath, runBaselines, score, trackingPython, type BaselineJob, type ScoreJob } from './python-tools.ts';
import { BASELINE_SETTINGS, BASELINES, renderReport, type RunKey, type TrackingReport } from './report.ts';
import { measureUpdateSpeed } from './update-speed.ts';
import { finishRun, publishSection, startRun } from '../report.ts';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const REPO = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(HERE, 'main.ts');
export const SEQUENCES = ['TUD-Campus', 'TUD-Stadtmitte'] as const;
/** Both TUD sequences: 640x480 at 25 frames per second. */
export const FPS = 25;
export const IMAGE_SIZE = '640x480';
export const LAGS = [0, 3] as const;

const program: Command = new Command('bench:tracking')
  .description('Tracking benchmark: Sightline vs SORT, ByteTrack, OC-SORT on noisy TUD detections, at lag 0 and 3 frames.')
  .option('--seeds <list>', 'seeds of the noisy detections, comma-separated', '1,2,3,4,5')
  .option('--out-dir <dir>', 'where detections and results are written', join(REPO, 'bench-results', 'tracking'))
  .option('--no-write', 'do not update docs/runs/tracking.md')
  .parse();
const o = program.opts<{ seeds: string; outDir: string; write: boolean }>();
const seeds = o.seeds.split(',').map(Number);
if (seeds.some((s) => !Number.isInteger(s) || s < 0)) program.error('--seeds: integers >= 0, comma-separated');

const run = promisify(execFile);
const start = startRun();
const env = await trackingPython();
mkdirSync(o.outDir, { recursive: true });

const baselineJobs: BaselineJob[] = [];
const scoreJobs: ScoreJob[] = [];
const runs: RunKey[] = [
  ...LAGS.map((lag) => ({ tracker: 'sightline' as const, lag })),
  { tracker: 'sightline-raw', lag: 3 },
  ...BASELINES.flatMap((tracker) => LAGS.map((lag) => ({ tracker, lag }))),
];
const groupOf = (key: RunKey, sequence?: string) => `${key.tracker}@${key.lag}${sequence ? `/${sequence}` : ''}`;
const runName = (key: RunKey, sequence: string, seed: number) => `${groupOf(key, sequence)}#${seed}`;

for (const sequence of SEQUENCES) {
  const gt = await groundTruthPath(env, sequence);
  const truth = parseMot(readFileSync(gt, 'utf8'));
  const lastFrame = Math.max(...truth.map((r) => r.frame));
  for (const seed of seeds) {
    const dir = join(o.outDir, sequence, `seed-${seed}`);
    mkdirSync(dir, { recursive: true });
    const det = join(dir, 'det.txt');
    writeFileSync(det, formatMotDetections(makeNoisyDetections(truth, { ...DEFAULT_NOISE, seed })));
    const results = (key: RunKey) => join(dir, `${key.tracker}-lag${key.lag}.txt`);

    for (const key of runs.filter((k) => k.tracker === 'sightline' || k.tracker === 'sightline-raw')) {
      const args = [
        '--det',
        det,
        '--out',
        results(key),
        '--lag-frames',
        String(key.lag),
        '--fps',
        String(FPS),
        '--image-size',
        IMAGE_SIZE,
        '--last-frame',
        String(lastFrame),
      ];
      await run(process.execPath, ['--import', 'tsx', CLI, ...args, ...(key.tracker === 'sightline-raw' ? ['--no-prediction'] : [])], {
        cwd: HERE,
      });
    }
    for (const tracker of BASELINES) {
      const outputs = Object.fromEntries(LAGS.map((lag) => [lag, results({ tracker, lag })]));
      baselineJobs.push({ det, fps: FPS, lastFrame, tracker, settings: BASELINE_SETTINGS[tracker], outputs });
    }
    for (const key of runs) {
      scoreJobs.push({ name: runName(key, sequence, seed), groups: [groupOf(key), groupOf(key, sequence)], gt, res: results(key) });
    }
  }
}
await runBaselines(env, baselineJobs, join(o.outDir, 'baseline-jobs.json'));
const scores = await score(env, scoreJobs, join(o.outDir, 'score-jobs.json'));

const report: TrackingReport = {
  seeds,
  runs: runs.map((key) => ({
    key,
    overall: scores.groups[groupOf(key)]!,
    perSequence: Object.fromEntries(SEQUENCES.map((s) => [s, scores.groups[groupOf(key, s)]!])),
    perRun: Object.fromEntries(SEQUENCES.flatMap((s) => seeds.map((seed) => [`${s} seed ${seed}`, scores.runs[runName(key, s, seed)]!]))),
  })),
  speed: measureUpdateSpeed(50, 3000),
  context: finishRun(start),
};
const { console: text, markdown } = renderReport(report);
process.stdout.write(`${text}\n`);
writeFileSync(join(o.outDir, 'report.json'), JSON.stringify(report, null, 2));
if (o.write) publishSection('tracking', markdown);
