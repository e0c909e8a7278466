/**
 * `pnpm models:add` on real ONNX files: an Ultralytics-style export becomes a folder with an explicit
 * manifest that the gateway's own reader accepts, after one real frame; a file it cannot serve is refused
 * with the reason and leaves nothing behind.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelNameFrom, modelsAdd } from '../../../src/cli/models-add.ts';
import { readModelSpec } from '../../../src/models/manifest.ts';
import { ensureOnnxFixtures, ONNX_FIXTURES_TIMEOUT_MS, type OnnxFixtures } from '@sightline/harness/onnx-fixtures';

let fixtures: OnnxFixtures;
let dir: string;

async function run(...argv: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await modelsAdd(argv, { out: (line) => out.push(line), err: (line) => err.push(line) });
  return { code, out, err };
}

beforeAll(async () => {
  fixtures = await ensureOnnxFixtures();
  dir = mkdtempSync(join(tmpdir(), 'sightline-models-add-'));
}, ONNX_FIXTURES_TIMEOUT_MS);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('pnpm models:add', () => {
  it('writes a folder with manifest, labels and the file, after one real frame, and says what it found', async () => {
    const { code, out } = await run(fixtures.wrappedSsd('yolov8'), '--name', 'my-yolo', '--models-dir', dir);
    expect(code).toBe(0);
    expect(out.join('\n')).toMatch(/80 classes from metadata names/);
    expect(out.join('\n')).toMatch(/yolov8 layout: output output0 \[1, 84, 8400\]/);
    expect(out.join('\n')).toMatch(/detection\(s\) at score >= 0.25: .*bicycle/);
    const spec = readModelSpec(join(dir, 'my-yolo'));
    expect(spec.manifest).toMatchObject({ name: 'my-yolo', decoder: 'yolov8', input: { width: 640, pad: 114 }, labels: 'labels.json' });
    expect(spec.labels).toHaveLength(80);
    expect(readdirSync(dir)).toEqual(['my-yolo']);
  });

  it('refuses what it cannot serve with the reason, and leaves nothing behind', async () => {
    for (const [broken, reason] of [
      ['segment', /task "segment" \(instance segmentation\) is not supported/],
      ['not-onnx', /not an ONNX/i],
      ['truncated', /truncated|ends/i],
    ] as const) {
      const { code, err } = await run(fixtures.broken(broken), '--models-dir', dir, '--name', broken);
      expect(code, broken).toBe(1);
      expect(err.join('\n'), broken).toMatch(reason);
      expect(existsSync(join(dir, broken)), broken).toBe(false);
    }
    expect(readdirSync(dir)).toEqual(['my-yolo']);
  });

  it('will not overwrite a folder unless told to', async () => {
    const again = await run(fixtures.wrappedSsd('yolov5'), '--name', 'my-yolo', '--models-dir', dir);
    expect(again.code).toBe(1);
    expect(again.err.join('\n')).toMatch(/exists already/);
    const replaced = await run(fixtures.wrappedSsd('yolov5'), '--name', 'my-yolo', '--models-dir', dir, '--replace');
    expect(replaced.code).toBe(0);
    expect(readModelSpec(join(dir, 'my-yolo')).manifest.decoder).toBe('yolov5');
  });

  it('names a model from its file name by the manifest rule', () => {
    expect(modelNameFrom('/x/YOLO11n Best.onnx')).toBe('yolo11n-best');
    expect(modelNameFrom('_model.v2.ONNX')).toBe('model.v2');
  });
});
