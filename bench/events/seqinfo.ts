/**
 * MOTChallenge's `seqinfo.ini` (`imWidth`, `imHeight`, `frameRate`, `seqLength` under `[Sequence]`), looked for
 * beside a det.txt and one folder up (the layout is `SEQ/det/det.txt` with `SEQ/seqinfo.ini`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface SeqInfo {
  path: string;
  width?: number;
  height?: number;
  fps?: number;
  length?: number;
}

export function parseSeqInfo(text: string, path: string): SeqInfo {
  const values = new Map<string, number>();
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*(\w+)\s*=\s*([\d.]+)\s*$/.exec(line);
    if (m) values.set(m[1]!, Number(m[2]));
  }
  const positive = (key: string) => {
    const v = values.get(key);
    return v !== undefined && Number.isFinite(v) && v > 0 ? v : undefined;
  };
  const info: SeqInfo = { path };
  const width = positive('imWidth');
  const height = positive('imHeight');
  const fps = positive('frameRate');
  const length = positive('seqLength');
  if (width !== undefined) info.width = width;
  if (height !== undefined) info.height = height;
  if (fps !== undefined) info.fps = fps;
  if (length !== undefined) info.length = length;
  return info;
}

/** The seqinfo.ini of the sequence `det` belongs to, if there is one. */
export function findSeqInfo(det: string): SeqInfo | undefined {
  for (const dir of [dirname(det), dirname(dirname(det))]) {
    const path = join(dir, 'seqinfo.ini');
    if (existsSync(path)) return parseSeqInfo(readFileSync(path, 'utf8'), path);
  }
  return undefined;
}
