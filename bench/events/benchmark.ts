/**
 * `pnpm bench:events`: line-crossing counts of `pnpm events` (Sightline's tracker and rule engine) beside
 * supervision's LineZone fed by SORT, ByteTrack and OC-SORT (roboflow's `trackers`), on the same seeded noisy
 * detections of TUD-Campus and TUD-Stadtmitte, scored against the crossings of the ground-truth trajectories over
 * the lines of rules/<sequence>.json. Prints the tables and writes docs/runs/events.md (`--no-write`: prints only).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Command } from 'commander';
import { parseCameraRules, type CameraRules, type DetectionEvent } from '@sightline/shared/events';
import { formatMotDetections, parseMot, type MotRow } from '../tracking/mot-file.ts';
import { DEFAULT_NOISE, makeNoisyDetections } from '../tracking/noisy-detections.ts';
import { groundTruthPath, trackingPython } from '../tracking/python-tools.ts';
import { BASELINE_SETTINGS, BASELINES } from '../tracking/report.ts';
import { finishRun, startRun, writeSection } from '../report.ts';
import { LINE_ZONE_CONFIGS as CONFIGS, runLineZones, type LineZoneCrossing, type LineZoneJob } from './python-baselines.ts';
import { renderReport, type EventsReport, type SystemResult } from './report.ts';
import { scoreCrossings, type CrossingScore } from './score.ts';
import { standingGroundTruth } from './standing.ts';
import { trueCrossings, type Crossing } from './truth.ts';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const REPO = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(HERE, 'main.ts');
export const SEQUENCES = ['TUD-Campus', 'TUD-Stadtmitte'] as const;
/** Both TUD sequences: 640x480 at 25 frames per second. */
const FPS = 25;
const WIDTH = 640;
const HEIGHT = 480;

const program: Command = new Command('bench:events')
  .description(
    "Line-crossing counts: Sightline's rule engine vs supervision's LineZone behind SORT, ByteTrack, OC-SORT on noisy TUD detections.",
  )
  .option('--seeds <list>', 'seeds of the noisy detections, comma-separated', '1,2,3,4,5')
  .option('--out-dir <dir>', 'where detections, events and results are written', join(REPO, 'bench-results', 'events'))
  .option('--no-write', 'do not write docs/runs/events.md')
  .parse();
const o = program.opts<{ seeds: string; outDir: string; write: boolean }>();
const seeds = o.seeds.split(',').map(Number);
if (seeds.some((s) => !Number.isInteger(s) || s < 0)) program.error('--seeds: integers >= 0, comma-separated');

const exec = promisify(execFile);
const start = startRun();
const env = await trackingPython();
mkdirSync(o.outDir, { recursive: true });

/** `pnpm events` as a user runs it; its line crossings. */
async function sightline(det: string, rules: string, out: string, lastFrame: number, ...flags: string[]): Promise<Crossing[]> {
  const args = [
    '--det',
    det,
    '--rules',
    rules,
    '--out',
    out,
    '--fps',
    String(FPS),
    '--size',
    `${WIDTH}x${HEIGHT}`,
    '--last-frame',
    String(lastFrame),
    ...flags,
  ];
  await exec(process.execPath, ['--import', 'tsx', CLI, ...args], { cwd: HERE });
  const events = readFileSync(out, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as DetectionEvent);
  return events
    .filter((e) => e.type === 'line_cross')
    .map((e) => ({ line: e.rule, direction: e.direction!, frame: e.frame!, id: e.trackId }));
}

const pixelLines = (rules: CameraRules) =>
  rules.lines.map((l) => ({
    name: l.name,
    start: [l.from[0] * WIDTH, l.from[1] * HEIGHT] as [number, number],
    end: [l.to[0] * WIDTH, l.to[1] * HEIGHT] as [number, number],
  }));

// ---------------------------------------------------------------------------------------------------------------
// The direction convention: a synthetic person walks across a line from side() -1 to +1 (the issue's `in`); what
// each LineZone configuration calls that crossing is supervision's name for `in`.
const checkDir = join(o.outDir, 'direction-check');
mkdirSync(checkDir, { recursive: true });
const checkRules: CameraRules = { lines: [{ name: 'check', from: [0.5, 0.9], to: [0.5, 0.1] }], zones: [] };
const walker: MotRow[] = Array.from({ length: 40 }, (_, k) => {
  const x = 120 + k * 10;
  return { frame: k + 1, id: 1, box: [x - 20, 180, x + 20, 300], score: 0.9 };
});
const checkTruth = trueCrossings(walker, checkRules, WIDTH, HEIGHT);
if (checkTruth.length !== 1 || checkTruth[0]!.direction !== 'in')
  throw new Error(`direction check: side() says ${JSON.stringify(checkTruth)}`);
writeFileSync(join(checkDir, 'det.txt'), formatMotDetections(walker));
writeFileSync(join(checkDir, 'rules.json'), JSON.stringify(checkRules));
const ours = await sightline(join(checkDir, 'det.txt'), join(checkDir, 'rules.json'), join(checkDir, 'events.jsonl'), 40);
if (ours.length !== 1 || ours[0]!.direction !== 'in') throw new Error(`direction check: pnpm events says ${JSON.stringify(ours)}`);
const [checked] = await runLineZones(
  env,
  [
    {
      det: join(checkDir, 'det.txt'),
      fps: FPS,
      lastFrame: 40,
      tracker: 'bytetrack',
      settings: BASELINE_SETTINGS.bytetrack,
      lines: pixelLines(checkRules),
      configs: CONFIGS,
      out: join(checkDir, 'linezone.json'),
    },
  ],
  join(checkDir, 'jobs.json'),
);
const svNames = new Set(checked!.map((c) => c.sv));
if (checked!.length !== CONFIGS.length || svNames.size !== 1) throw new Error(`direction check: LineZone says ${JSON.stringify(checked)}`);
/** supervision's name for the issue's `in`. */
const svIn = [...svNames][0]!;
const toIssue = (sv: LineZoneCrossing['sv']) => (sv === svIn ? 'in' : 'out');

// ---------------------------------------------------------------------------------------------------------------
const jobs: LineZoneJob[] = [];
const runs: Array<{
  sequence: string;
  seed: number;
  truth: Crossing[];
  sightline: Crossing[];
  /** `pnpm events --detection-boxes`: the engine anchored on the detections' boxes (a caller that gives no trackBox). */
  detectionBoxes: Crossing[];
  jobs: Record<string, number>;
}> = [];
const sequenceInfo: EventsReport['sequences'] = [];
const scenes = [
  ...SEQUENCES.map((name) => ({
    name,
    synthetic: false,
    gt: async () => parseMot(readFileSync(await groundTruthPath(env, name), 'utf8')),
  })),
  { name: 'standing', synthetic: true, gt: async () => standingGroundTruth(WIDTH) },
];
for (const scene of scenes) {
  const sequence = scene.name;
  const rulesFile = join(HERE, 'rules', `${sequence}.json`);
  const rules = parseCameraRules(JSON.parse(readFileSync(rulesFile, 'utf8')));
  const gt = await scene.gt();
  const lastFrame = Math.max(...gt.map((r) => r.frame));
  const truth = trueCrossings(gt, rules, WIDTH, HEIGHT);
  sequenceInfo.push({
    name: sequence,
    synthetic: scene.synthetic,
    frames: lastFrame,
    people: new Set(gt.map((r) => r.id)).size,
    rules,
    truth,
  });
  for (const seed of seeds) {
    const dir = join(o.outDir, sequence, `seed-${seed}`);
    mkdirSync(dir, { recursive: true });
    const det = join(dir, 'det.txt');
    writeFileSync(det, formatMotDetections(makeNoisyDetections(gt, { ...DEFAULT_NOISE, seed })));
    const run = {
      sequence,
      seed,
      truth,
      sightline: await sightline(det, rulesFile, join(dir, 'events.jsonl'), lastFrame),
      detectionBoxes: await sightline(det, rulesFile, join(dir, 'events-detection-boxes.jsonl'), lastFrame, '--detection-boxes'),
      jobs: {} as Record<string, number>,
    };
    for (const tracker of BASELINES) {
      run.jobs[tracker] = jobs.length;
      jobs.push({
        det,
        fps: FPS,
        lastFrame,
        tracker,
        settings: BASELINE_SETTINGS[tracker],
        lines: pixelLines(rules),
        configs: CONFIGS,
        out: join(dir, `linezone-${tracker}.json`),
      });
    }
    runs.push(run);
  }
}
const results = await runLineZones(env, jobs, join(o.outDir, 'linezone-jobs.json'));

const systems: SystemResult[] = [];
const perRun = (crossingsOf: (run: (typeof runs)[number]) => Crossing[]) =>
  Object.fromEntries(runs.map((r) => [`${r.sequence}#${r.seed}`, scoreCrossings(crossingsOf(r), r.truth)])) as Record<
    string,
    CrossingScore
  >;
systems.push({ key: 'sightline', tracker: 'sightline', config: 'pnpm events', perRun: perRun((r) => r.sightline) });
systems.push({
  key: 'sightline-detection-boxes',
  tracker: 'sightline',
  config: 'pnpm events --detection-boxes',
  perRun: perRun((r) => r.detectionBoxes),
});
for (const tracker of BASELINES) {
  for (const config of CONFIGS) {
    systems.push({
      key: `${tracker}/${config.name}`,
      tracker,
      config: config.name,
      perRun: perRun((r) =>
        results[r.jobs[tracker]!]!.filter((c) => c.config === config.name).map((c) => ({
          line: c.line,
          direction: toIssue(c.sv),
          frame: c.frame,
          id: c.trackId,
        })),
      ),
    });
  }
}

const report: EventsReport = {
  seeds,
  command: `pnpm bench:events${o.seeds === '1,2,3,4,5' ? '' : ` --seeds ${o.seeds}`}`,
  context: finishRun(start),
  svIn,
  sequences: sequenceInfo,
  systems,
};
const { console: text, markdown } = renderReport(report);
process.stdout.write(`${text}\n`);
writeFileSync(join(o.outDir, 'report.json'), JSON.stringify(report, null, 2));
if (o.write) process.stdout.write(`\nwrote ${writeSection('events', markdown)}\n`);
