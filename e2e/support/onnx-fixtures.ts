/**
 * The Ultralytics-layout fixture graphs the gateway's tests use, made by the same generator
 * (models/tools/onnx_fixtures.py: the shipped SSD wrapped into each YOLO layout behind a 640x640 NCHW 0..1
 * input, with Ultralytics' metadata) and their reference detections on the fixture photos
 * (models/tools/reference_decode.py, written apart from the gateway's code), in artifacts/onnx-fixtures.
 * Made once by the global setup, in the `onnx-fixtures` venv (`ensurePythonEnv`: onnx, onnxruntime,
 * OpenCV from PyPI, pinned); reused until a script, the requirements, the SSD or a photo changes (their
 * digest is the stamp).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ensurePythonEnv } from '@sightline/gateway/process';
import { ARTIFACTS_DIR, REPO_ROOT } from './paths.ts';

const run = promisify(execFile);

const TOOLS = join(REPO_ROOT, 'models', 'tools');
const SSD_DIR = join(REPO_ROOT, 'models', 'ssdlite-mobilenetv2-coco');
const PHOTOS_DIR = join(REPO_ROOT, 'shared', 'fixtures', 'photos');
const REQUIREMENTS = join(TOOLS, 'onnx-fixtures-requirements.txt');
export const ONNX_FIXTURES_DIR = join(ARTIFACTS_DIR, 'onnx-fixtures');

export type YoloLayout = 'yolov8' | 'yolov5' | 'yolo-end2end';

/** One detection of reference_decode.py, in photo pixels. */
export interface ReferenceDetection {
  label: string;
  classId: number;
  score: number;
  box: [number, number, number, number];
}

/** The shipped SSD inside a graph that takes [1,3,640,640] RGB 0..1 and emits `layout`: a zero-config Ultralytics export. */
export function wrappedSsd(layout: YoloLayout): string {
  return join(ONNX_FIXTURES_DIR, 'wrapped-ssd', layout, 'model.onnx');
}

/** What the wrapped SSD finds on a fixture photo (Ultralytics' predict defaults: score 0.25, IoU 0.7), best first. */
export function referenceDetections(layout: YoloLayout, photo: string): ReferenceDetection[] {
  const all = JSON.parse(readFileSync(join(ONNX_FIXTURES_DIR, 'reference.json'), 'utf8')) as Record<
    YoloLayout,
    Record<string, ReferenceDetection[]>
  >;
  const found = all[layout]?.[photo];
  if (!found) throw new Error(`reference.json has no ${layout} detections of ${photo}`);
  return found;
}

function stamp(): string {
  const hash = createHash('sha256');
  const photos = readdirSync(PHOTOS_DIR)
    .filter((file) => file.endsWith('.jpg'))
    .sort()
    .map((file) => join(PHOTOS_DIR, file));
  // The SSD by its manifest (which holds its sha256) rather than by hashing 18 MB each time.
  const inputs = [
    join(TOOLS, 'onnx_fixtures.py'),
    join(TOOLS, 'reference_decode.py'),
    REQUIREMENTS,
    join(SSD_DIR, 'manifest.json'),
    ...photos,
  ];
  for (const file of inputs) hash.update(file.slice(REPO_ROOT.length)).update(readFileSync(file));
  return hash.digest('hex');
}

/** Makes the fixtures unless the ones in place are current; returns how long it took (0: reused). */
export async function makeOnnxFixtures(): Promise<number> {
  const wanted = stamp();
  const stampFile = join(ONNX_FIXTURES_DIR, '.stamp');
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8').trim() === wanted) return 0;
  const started = Date.now();
  const { python, env } = await ensurePythonEnv({ name: 'onnx-fixtures', requirements: REQUIREMENTS });
  // Written aside and moved into place, so an interrupted run never leaves a half-made folder that looks current.
  const building = `${ONNX_FIXTURES_DIR}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  const options = { env: { ...process.env, ...env }, timeout: 10 * 60_000, maxBuffer: 16 << 20 };
  try {
    await run(python, [join(TOOLS, 'onnx_fixtures.py'), '--out', building, '--ssd', SSD_DIR], options);
    await run(
      python,
      [join(TOOLS, 'reference_decode.py'), '--fixtures', building, '--photos', PHOTOS_DIR, '--out', join(building, 'reference.json')],
      options,
    );
    writeFileSync(join(building, '.stamp'), `${wanted}\n`);
    rmSync(ONNX_FIXTURES_DIR, { recursive: true, force: true });
    renameSync(building, ONNX_FIXTURES_DIR);
  } catch (error) {
    rmSync(building, { recursive: true, force: true });
    const { stderr = '' } = error as { stderr?: string };
    throw new Error(`making the ONNX fixtures failed: ${stderr || String(error)}`, { cause: error });
  }
  return Date.now() - started;
}
