/**
 * ONNX fixture graphs in Ultralytics' layouts (models/tools/onnx_fixtures.py) and the reference detections
 * of the wrapped SSD on the fixture photos (models/tools/reference_decode.py), made on demand in the
 * gitignored models/.generated/onnx-fixtures: the first test that needs them makes the `onnx-fixtures`
 * venv (onnx, onnxruntime, OpenCV from PyPI) and runs both scripts, about 5 s after the venv; later calls
 * reuse them until a script, the requirements, the SSD or a photo changes (their digest is the stamp).
 * Callers in other processes wait on a lock instead of writing the same folder at once.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { withDirLock } from '../../src/process/dir-lock.ts';
import { ensurePythonEnv } from '../../src/process/python-env.ts';

const run = promisify(execFile);

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const TOOLS = join(REPO, 'models', 'tools');
const SSD_DIR = join(REPO, 'models', 'ssdlite-mobilenetv2-coco');
const PHOTOS_DIR = join(REPO, 'shared', 'fixtures', 'photos');
export const ONNX_FIXTURES_DIR = join(REPO, 'models', '.generated', 'onnx-fixtures');
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
  /** The shipped SSD inside a 640x640 NCHW 0..1 graph emitting `layout`. */
  wrappedSsd(layout: YoloLayout): string;
  broken(kind: BrokenCase): string;
  /** IR version 3, its initializer also listed as a graph input. */
  legacyIr3: string;
  /** layout -> photo -> detections, best first. */
  reference(): Record<YoloLayout, Record<string, ReferenceDetection[]>>;
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
  for (const file of files) hash.update(file.slice(REPO.length)).update(readFileSync(file));
  return hash.digest('hex');
}

function fixtures(dir: string): OnnxFixtures {
  return {
    dir,
    small: (layout) => join(dir, 'small', layout, 'model.onnx'),
    wrappedSsd: (layout) => join(dir, 'wrapped-ssd', layout, 'model.onnx'),
    broken: (kind) => join(dir, 'broken', kind, 'model.onnx'),
    legacyIr3: join(dir, 'legacy-ir3', 'model.onnx'),
    reference: () => JSON.parse(readFileSync(join(dir, 'reference.json'), 'utf8')) as ReturnType<OnnxFixtures['reference']>,
  };
}

const isCurrent = (stamp: string) => {
  const file = join(ONNX_FIXTURES_DIR, '.stamp');
  return existsSync(file) && readFileSync(file, 'utf8').trim() === stamp;
};

export async function ensureOnnxFixtures(): Promise<OnnxFixtures> {
  const stamp = stampOf();
  if (!isCurrent(stamp)) {
    const lock = { waitMs: ONNX_FIXTURES_TIMEOUT_MS, pollMs: 250, staleHint: 'remove it if no test is making fixtures' };
    await withDirLock(`${ONNX_FIXTURES_DIR}.lock`, lock, async () => {
      if (isCurrent(stamp)) return;
      const { python, env } = await ensurePythonEnv({ name: 'onnx-fixtures', requirements: ONNX_FIXTURES_REQUIREMENTS });
      const building = `${ONNX_FIXTURES_DIR}.building`;
      rmSync(building, { recursive: true, force: true });
      const options = { env: { ...process.env, ...env }, timeout: 5 * 60_000, maxBuffer: 16 << 20 };
      await run(python, [join(TOOLS, 'onnx_fixtures.py'), '--out', building, '--ssd', SSD_DIR], options);
      await run(
        python,
        [join(TOOLS, 'reference_decode.py'), '--fixtures', building, '--photos', PHOTOS_DIR, '--out', join(building, 'reference.json')],
        options,
      );
      writeFileSync(join(building, '.stamp'), `${stamp}\n`);
      rmSync(ONNX_FIXTURES_DIR, { recursive: true, force: true });
      renameSync(building, ONNX_FIXTURES_DIR);
    });
  }
  return fixtures(ONNX_FIXTURES_DIR);
}
