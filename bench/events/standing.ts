/**
 * A synthetic scene for the jitter half of the events benchmark: three people of the TUD sequences' sizes (40x100,
 * 60x150 and 100x250 pixels) standing still for ten seconds, each with their feet on one of the lines of
 * rules/standing.json. Nobody crosses anything: every crossing a counter reports is a box jittering on a line
 * (the noise model's, as on the TUD sequences).
 */
import type { MotRow } from '../tracking/mot-file.ts';

export const STANDING_FRAMES = 250;
const PEOPLE = [
  { x: 0.25, w: 40, h: 100 },
  { x: 0.5, w: 60, h: 150 },
  { x: 0.75, w: 100, h: 250 },
];

export function standingGroundTruth(width = 640, feetY = 450): MotRow[] {
  const rows: MotRow[] = [];
  for (let frame = 1; frame <= STANDING_FRAMES; frame++) {
    PEOPLE.forEach((p, i) => {
      const x = p.x * width;
      rows.push({ frame, id: i + 1, box: [x - p.w / 2, feetY - p.h, x + p.w / 2, feetY], score: 1 });
    });
  }
  return rows;
}
