/**
 * The crossings a ground truth makes: each object's anchor (the rule's, bottom centre by default) frame by frame,
 * a crossing wherever its side() changes across the segment itself, exactly, with no hysteresis (what the object
 * did, not what a detector saw). Frames where the anchor is exactly on the line keep the side before.
 */
import {
  anchorPoint,
  DEFAULT_ANCHOR,
  side,
  stepCrossesSegment,
  type CameraRules,
  type Direction,
  type NormalisedPoint,
} from '@sightline/shared/events';
import type { MotRow } from '../tracking/mot-file.ts';

export interface Crossing {
  line: string;
  direction: Direction;
  frame: number;
  /** The object (ground truth) or track (a counter's output) that crossed. */
  id: number;
}

export function trueCrossings(truth: readonly MotRow[], rules: CameraRules, width: number, height: number): Crossing[] {
  const byId = new Map<number, MotRow[]>();
  for (const row of truth) {
    let rows = byId.get(row.id);
    if (!rows) byId.set(row.id, (rows = []));
    rows.push(row);
  }
  const out: Crossing[] = [];
  for (const line of rules.lines) {
    for (const [id, rows] of byId) {
      let last: { side: -1 | 1; p: NormalisedPoint } | undefined;
      for (const row of [...rows].sort((a, b) => a.frame - b.frame)) {
        const p = anchorPoint(row.box, line.anchor ?? DEFAULT_ANCHOR, width, height);
        const s = side(line, p);
        if (s === 0) continue;
        if (last && s !== last.side && stepCrossesSegment(line, last.p, p)) {
          out.push({ line: line.name, direction: last.side < 0 ? 'in' : 'out', frame: row.frame, id });
        }
        last = { side: s, p };
      }
    }
  }
  return out.sort((a, b) => a.frame - b.frame || a.line.localeCompare(b.line) || a.id - b.id);
}
