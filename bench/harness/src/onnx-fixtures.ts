/**
 * `@sightline/harness/onnx-fixtures`: ONNX fixture graphs in Ultralytics' layouts
 * (models/tools/onnx_fixtures.py: hand-made small graphs, broken files, and the shipped SSD wrapped into
 * each YOLO layout behind a 640x640 NCHW 0..1 input with Ultralytics' metadata) and the reference
 * detections of the wrapped SSD on the fixture photos (models/tools/reference_decode.py, written apart from
 * the gateway's code). One builder for the gateway's tests and the e2e suite, one folder for both: the
 * gitignored models/.generated/onnx-fixtures.
 *
 * Made on demand: the first caller makes the `onnx-fixtures` venv (onnx, onnxruntime, OpenCV from PyPI,
 * pinned) and runs both scripts, about 5 s after the venv; later calls reuse them until a script, the
 * requirements, the SSD or a photo changes (their digest is the stamp). Callers in other processes wait
 * on a lock instead of writing the same folder at once, and a build is written aside and moved into place,
 * so an interrupted one never leaves a half-made folder that looks current.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { withDirLock } from './process/dir-lock.ts';
import { ensurePythonEnv } from './process/python-env.ts';
import { REPO_ROOT } from './repo-root.ts';

const run = promisify(execFile);

const TOOLS = join(REPO_ROOT, 'models', 'tools');
const SSD_DIR = join(REPO_ROOT, 'models', 'ssdlite-mobilenetv2-coco');
const PHOTOS_DIR = join(REPO_ROOT, 'shared', 'fixtures', 'photos');
export const ONNX_FIXTURES_DIR = join(REPO_ROOT, 'models', '.generated', 'onnx-fixtures');
export const ONNX_FIXTURES_REQUIREMENTS = join(TOOLS, 'onnx-fixtures-requirements.txt');

export const YOLO_LAYOUTS = ['yolov8', 'yolov5', 'yolo-end2end'] as const;
export type YoloLayout = (typeof YOLO_LAYOUTS)[number];
export const BROKEN_CASES = [
  'not-onnx',
  'empty',
  'truncated',
  'segment',
  'pose',
  'obb',
  'classify',
  'input-rank',
  'output-layout',
] as const;
export type BrokenCase = (typeof BROKEN_CASES)[number];

/** A detection of reference_decode.py, in photo pixels. */
export interface ReferenceDetection {
  label: string;
  classId: number;
  score: number;
  box: [number, number, number, number];
}

export interface OnnxFixtures {
  dir: string;
  /** A graph with hand-chosen constant outputs (see onnx_fixtures.py SMALL_ANCHORS). */
  small(layout: YoloLayout): string;
  /** The shipped SSD inside a graph that takes [1,3,640,640] RGB 0..1 and emits `layout`: a zero-config Ultralytics export. */
  wrappedSsd(layout: YoloLayout): string;
  broken(kind: BrokenCase): string;
  /** IR version 3, its initializer also listed as a graph input. */
  legacyIr3: string;
  /** layout -> photo -> detections, best first. */
  reference(): Record<YoloLayout, Record<string, ReferenceDetection[]>>;
  /** What the wrapped SSD finds on one fixture photo (Ultralytics' predict defaults: score 0.25, IoU 0.7), best first. */
  referenceFor(layout: YoloLayout, photo: string): ReferenceDetection[];
  /** How long ensureOnnxFixtures spent making them: 0 when the ones in place were current. */
  madeMs: number;
}

/** Long enough for a first venv install from PyPI on a slow link. */
export const ONNX_FIXTURES_TIMEOUT_MS = 15 * 60_000;

function stampOf(): string {
  const hash = createHash('sha256');
  const files = [
    join(TOOLS, 'onnx_fixtures.py'),
    join(TOOLS, 'reference_decode.py'),
    ONNX_FIXTURES_REQUIREMENTS,
    // The SSD by its manifest (which holds its sha256) rather than by hashing 18 MB each time.
    join(SSD_DIR, 'manifest.json'),
    join(SSD_DIR, 'labels.json'),
    ...readdirSync(PHOTOS_DIR)
      .filter((f) => f.endsWith('.jpg'))
      .sort()
      .map((f) => join(PHOTOS_DIR, f)),
  ];
  for (const file of files) hash.update(file.slice(REPO_ROOT.length)).update(readFileSync(file));
  return hash.digest('hex');
}

/** The fixtures' paths, without making them: for a caller that knows they were made (e.g. by a global setup). */
export function onnxFixtures(dir = ONNX_FIXTURES_DIR, madeMs = 0): OnnxFixtures {
  const reference = () => JSON.parse(readFileSync(join(dir, 'reference.json'), 'utf8')) as ReturnType<OnnxFixtures['reference']>;
  return {
    dir,
    small: (layout) => join(dir, 'small', layout, 'model.onnx'),
    wrappedSsd: (layout) => join(dir, 'wrapped-ssd', layout, 'model.onnx'),
    broken: (kind) => join(dir, 'broken', kind, 'model.onnx'),
    legacyIr3: join(dir, 'legacy-ir3', 'model.onnx'),
    reference,
    referenceFor: (layout, photo) => {
      const found = reference()[layout]?.[photo];
      if (!found) throw new Error(`reference.json has no ${layout} detections of ${photo}`);
      return found;
    },
    madeMs,
  };
}

const isCurrent = (stamp: string) => {
  const file = join(ONNX_FIXTURES_DIR, '.stamp');
  return existsSync(file) && readFileSync(file, 'utf8').trim() === stamp;
};

/** Makes the fixtures unless the ones in place are current (waiting for another process making them). */
export async function ensureOnnxFixtures(): Promise<OnnxFixtures> {
  const stamp = stampOf();
  if (isCurrent(stamp)) return onnxFixtures();
  const started = Date.now();
  const lock = { waitMs: ONNX_FIXTURES_TIMEOUT_MS, pollMs: 250, staleHint: 'remove it if nothing is making fixtures' };
  await withDirLock(`${ONNX_FIXTURES_DIR}.lock`, lock, async () => {
    if (isCurrent(stamp)) return;
    const { python, env } = await ensurePythonEnv({ name: 'onnx-fixtures', requirements: ONNX_FIXTURES_REQUIREMENTS });
    const building = `${ONNX_FIXTURES_DIR}.building`;
    rmSync(building, { recursive: true, force: true });
    const options = { env: { ...process.env, ...env }, timeout: 10 * 60_000, maxBuffer: 16 << 20 };
    try {
      await run(python, [join(TOOLS, 'onnx_fixtures.py'), '--out', building, '--ssd', SSD_DIR], options);
      await run(
        python,
        [join(TOOLS, 'reference_decode.py'), '--fixtures', building, '--photos', PHOTOS_DIR, '--out', join(building, 'reference.json')],
        options,
      );
    } catch (error) {
      rmSync(building, { recursive: true, force: true });
      const { stderr = '' } = error as { stderr?: string };
      throw new Error(`making the ONNX fixtures failed: ${stderr || String(error)}`, { cause: error });
    }
    writeFileSync(join(building, '.stamp'), `${stamp}\n`);
    rmSync(ONNX_FIXTURES_DIR, { recursive: true, force: true });
    renameSync(building, ONNX_FIXTURES_DIR);
  });
  return onnxFixtures(ONNX_FIXTURES_DIR, Date.now() - started);
}
