/**
 * `pnpm track --det FILE --out FILE [--lag-frames N] [--fps F]`: the product's tracker
 * (`@sightline/shared/tracking`) over a MOTChallenge det.txt, MOTChallenge results out.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Command } from 'commander';
import { detectionsByFrame, formatMotResults, parseMot } from './mot-file.ts';
import { runTracker } from './run-tracker.ts';
import { callerPath, integer, positive } from '../cli.ts';

// Typed, so that program.error (never returns) narrows like a throw.
const program: Command = new Command('track')
  .description(
    "Tracks a MOTChallenge det.txt (frame,id,x,y,w,h,conf,...) with Sightline's tracker and writes MOTChallenge results " +
      '(frame,id,x,y,w,h,1,-1,-1,-1). With --lag-frames N the detections of frame t are known only at frame t+N, and each ' +
      "frame's output is what the overlay draws then: every track predicted to that frame's time.",
  )
  .requiredOption('--det <file>', 'detections, MOTChallenge det.txt')
  .requiredOption('--out <file>', 'results file to write')
  .option('--lag-frames <n>', 'frames between capture and answer', integer(0), 0)
  .option('--fps <f>', 'frames per second of the sequence (TUD and most MOTChallenge sequences: 25)', positive('number'), 25)
  .option('--no-prediction', "draw each answer's boxes where they were at its capture time (no latency compensation)")
  .option(
    '--image-size <WxH>',
    "the sequence's image size (seqinfo.ini's imWidth x imHeight): tracks missed at the picture's edge are not drawn",
  )
  .option('--last-frame <n>', 'last frame of the sequence (default: the last frame with a detection)', integer(0))
  .parse();
/** Paths are the caller's: pnpm runs scripts in the package folder and names the caller's in INIT_CWD. */

const o = program.opts<{
  det: string;
  out: string;
  lagFrames: number;
  fps: number;
  prediction: boolean;
  imageSize?: string;
  lastFrame?: number;
}>();

let frame: { width: number; height: number } | undefined;
if (o.imageSize !== undefined) {
  const size = /^(\d+)x(\d+)$/.exec(o.imageSize);
  if (!size) program.error(`--image-size must be WIDTHxHEIGHT, e.g. 640x480 (got ${o.imageSize})`);
  frame = { width: Number(size[1]), height: Number(size[2]) };
}

let rows: ReturnType<typeof parseMot>;
try {
  rows = parseMot(readFileSync(callerPath(o.det), 'utf8'));
} catch (error) {
  program.error(`${o.det}: ${(error as Error).message}`);
}
const results = runTracker(detectionsByFrame(rows), {
  fps: o.fps,
  lagFrames: o.lagFrames,
  predict: o.prediction,
  ...(frame ? { frame } : {}),
  ...(o.lastFrame === undefined ? {} : { lastFrame: o.lastFrame }),
});
writeFileSync(callerPath(o.out), formatMotResults(results));
