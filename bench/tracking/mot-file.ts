/**
 * MOTChallenge text files: `frame,id,x,y,w,h,conf,...` one box per line (frames from 1, boxes as
 * top-left corner and size in pixels). Detection files (`det.txt`) carry id -1 and the detector's
 * confidence; ground truth and results carry the object's id.
 */
import type { Detection } from '@sightline/shared/schemas';
import type { Box } from '@sightline/shared/tracking';

export interface MotRow {
  frame: number;
  id: number;
  /** [x1, y1, x2, y2], the protocol's box. */
  box: Box;
  /** The confidence column. */
  score: number;
}

/** MOT files name no class: every box is a pedestrian, COCO's `person`, as the gateway's models number it. */
export const MOT_LABEL = 'person';
export const MOT_CLASS_ID = 1;

/** Reads every non-empty line; throws on a line that is not at least seven numbers. */
export function parseMot(text: string): MotRow[] {
  const rows: MotRow[] = [];
  const lines = text.split(/\r?\n/);
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!.trim();
    if (line === '') continue;
    const fields = line.split(/[,\s]+/).map(Number);
    if (fields.length < 7 || fields.slice(0, 7).some((v) => !Number.isFinite(v))) {
      throw new Error(`line ${n + 1}: expected frame,id,x,y,w,h,conf,...: ${line}`);
    }
    const [frame, id, x, y, w, h, score] = fields as [number, number, number, number, number, number, number];
    if (!Number.isInteger(frame) || frame < 1) throw new Error(`line ${n + 1}: frame must be an integer from 1: ${line}`);
    rows.push({ frame, id, box: [x, y, x + w, y + h], score });
  }
  return rows;
}

/** Detections per frame, as the tracker takes them. */
export function detectionsByFrame(rows: readonly MotRow[]): Map<number, Detection[]> {
  const frames = new Map<number, Detection[]>();
  for (const row of rows) {
    let list = frames.get(row.frame);
    if (!list) frames.set(row.frame, (list = []));
    list.push({ label: MOT_LABEL, classId: MOT_CLASS_ID, score: row.score, box: row.box });
  }
  return frames;
}

const round = (v: number) => String(Math.round(v * 100) / 100);

/** Results (`frame,id,x,y,w,h,1,-1,-1,-1`), by frame then id. */
export function formatMotResults(rows: ReadonlyArray<Pick<MotRow, 'frame' | 'id' | 'box'>>): string {
  const sorted = [...rows].sort((a, b) => a.frame - b.frame || a.id - b.id);
  return sorted.map((r) => [r.frame, r.id, ...xywh(r.box).map(round), 1, -1, -1, -1].join(',') + '\n').join('');
}

/** Detections (`frame,-1,x,y,w,h,conf,-1,-1,-1`), in the order given. */
export function formatMotDetections(rows: ReadonlyArray<Pick<MotRow, 'frame' | 'box' | 'score'>>): string {
  return rows.map((r) => [r.frame, -1, ...xywh(r.box).map(round), round(r.score), -1, -1, -1].join(',') + '\n').join('');
}

function xywh(box: Box): [number, number, number, number] {
  return [box[0], box[1], box[2] - box[0], box[3] - box[1]];
}
