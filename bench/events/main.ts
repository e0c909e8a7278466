/**
 * `pnpm events --det det.txt --rules rules.json --out events.jsonl [--fps 25] [--size WxH] [--camera NAME]`: the
 * gateway's tracker and rule engine over a MOTChallenge det.txt, one JSON event per line out (each with its
 * `frame`), the counts per rule, direction and label on stderr.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command } from 'commander';
import { cameraNameError, CountTable, parseCameraRules, RulesError, type CameraRules } from '@sightline/shared/events';
import { detectionsByFrame, parseMot } from '../tracking/mot-file.ts';
import { runEvents } from './run-events.ts';
import { findSeqInfo } from './seqinfo.ts';

// Typed, so that program.error (never returns) narrows like a throw.
const program: Command = new Command('events')
  .description(
    "Runs Sightline's tracker and rule engine (the gateway's own) over a MOTChallenge det.txt (frame,id,x,y,w,h,conf,...; " +
      'every box a person) with the lines and zones of a rules file ({"lines": [...], "zones": [...]}, normalised to the ' +
      'picture), writes one JSON event per line and prints the counts per rule, direction and label to stderr. Frame f ' +
      'is captured at f / fps.',
  )
  .requiredOption('--det <file>', 'detections, MOTChallenge det.txt')
  .requiredOption('--rules <file>', "the camera's rules, JSON (as PUT /api/cameras/NAME/rules takes them)")
  .requiredOption('--out <file>', 'events file to write (JSON Lines)')
  .option('--fps <f>', "frames per second (default: seqinfo.ini's frameRate beside the det.txt, else 25)")
  .option('--size <WxH>', "the picture's size, pixels (default: seqinfo.ini's imWidth x imHeight, else 640x480)")
  .option('--camera <name>', 'the camera the events name', 'file')
  .option(
    '--detection-boxes',
    "anchor on the detections' own boxes (averaged over the engine's smoothingMs), not the tracker's filtered ones",
  )
  .option('--last-frame <n>', "last frame of the sequence (default: seqinfo.ini's seqLength, else the last frame with a detection)")
  .parse();
/** Paths are the caller's: pnpm runs scripts in the package folder and names the caller's in INIT_CWD. */
const callerPath = (path: string) => resolve(process.env.INIT_CWD ?? process.cwd(), path);

const o = program.opts<{
  det: string;
  rules: string;
  out: string;
  fps?: string;
  size?: string;
  camera: string;
  lastFrame?: string;
  detectionBoxes?: boolean;
}>();
const seqInfo = findSeqInfo(callerPath(o.det));

const positive = (name: string, value: string, integer: boolean) => {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n)))
    program.error(`${name} must be a${integer ? 'n integer' : ' number'} > 0 (got ${value})`);
  return n;
};
const fps = o.fps === undefined ? (seqInfo?.fps ?? 25) : positive('--fps', o.fps, false);
let width = seqInfo?.width ?? 640;
let height = seqInfo?.height ?? 480;
if (o.size !== undefined) {
  const size = /^(\d+)x(\d+)$/.exec(o.size);
  if (!size || Number(size[1]) === 0 || Number(size[2]) === 0) program.error(`--size must be WIDTHxHEIGHT, e.g. 640x480 (got ${o.size})`);
  width = Number(size[1]);
  height = Number(size[2]);
}
const nameError = cameraNameError(o.camera);
if (nameError) program.error(`--camera: ${nameError}`);

let rules: CameraRules;
try {
  const value: unknown = JSON.parse(readFileSync(callerPath(o.rules), 'utf8'));
  // A camera's rules as GET /api/cameras/NAME/rules serves them carry its name and time: not rules.
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const { camera: _camera, updatedAt: _updatedAt, ...rest } = value as Record<string, unknown>;
    rules = parseCameraRules(rest);
  } else {
    rules = parseCameraRules(value);
  }
} catch (error) {
  if (error instanceof RulesError) program.error(`${o.rules}: ${error.message}`);
  program.error(`${o.rules}: ${(error as Error).message}`);
}

let rows: ReturnType<typeof parseMot>;
try {
  rows = parseMot(readFileSync(callerPath(o.det), 'utf8'));
} catch (error) {
  program.error(`${o.det}: ${(error as Error).message}`);
}
const lastFrame =
  o.lastFrame === undefined ? Math.max(seqInfo?.length ?? 0, ...rows.map((r) => r.frame)) : positive('--last-frame', o.lastFrame, true);

const events = runEvents(detectionsByFrame(rows), rules, {
  fps,
  width,
  height,
  camera: o.camera,
  lastFrame,
  trackBoxes: !o.detectionBoxes,
});
try {
  writeFileSync(callerPath(o.out), events.map((e) => `${JSON.stringify(e)}\n`).join(''));
} catch (error) {
  program.error(`${o.out}: ${(error as Error).message}`);
}

const counts = new CountTable();
counts.addAll(events);
const listed = counts.list();
const table = [['rule', 'kind', 'label', 'count'], ...listed.map((c) => [c.rule, c.kind, c.label, String(c.count)])];
const widths = table[0]!.map((_, k) => Math.max(...table.map((r) => r[k]!.length)));
process.stderr.write(
  `${events.length} events over ${lastFrame} frames (${width}x${height}, ${fps} fps) -> ${o.out}\n` +
    (listed.length === 0
      ? 'no counts\n'
      : table
          .map(
            (r) =>
              r
                .map((v, k) => v.padEnd(widths[k]!))
                .join('  ')
                .trimEnd() + '\n',
          )
          .join('')),
);
const silent = [...rules.lines.map((l) => l.name), ...rules.zones.map((z) => z.name)].filter(
  (name) => !listed.some((c) => c.rule === name),
);
if (silent.length > 0) process.stderr.write(`no events: ${silent.join(', ')}\n`);
