/**
 * The benchmark lists a models directory the way the gateway serves it: a folder holding only `model.onnx`
 * (an Ultralytics export: the shipped SSD wrapped into the YOLOv8 layout by the ONNX fixture builder) is a
 * model, beside a manifest folder; a broken one is named with the gateway's reason; hidden folders are not
 * models.
 */
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CONFIG } from '@sightline/gateway';
import { ensureOnnxFixtures, ONNX_FIXTURES_TIMEOUT_MS, type OnnxFixtures } from '@sightline/harness/onnx-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { benchModels, benchModelSpec } from '../../../bare/model-specs.ts';

const SSD = 'ssdlite-mobilenetv2-coco';
let fixtures: OnnxFixtures;
let modelsDir: string;

function dropIn(folder: string, file: string): void {
  mkdirSync(join(modelsDir, folder));
  copyFileSync(file, join(modelsDir, folder, 'model.onnx'));
}

beforeAll(async () => {
  fixtures = await ensureOnnxFixtures();
  modelsDir = mkdtempSync(join(tmpdir(), 'sightline-bench-models-'));
  cpSync(join(DEFAULT_CONFIG.modelsDir, SSD), join(modelsDir, SSD), { recursive: true });
  dropIn('my-yolo', fixtures.wrappedSsd('yolov8'));
  dropIn('not-a-model', fixtures.broken('not-onnx'));
  dropIn('.hidden', fixtures.wrappedSsd('yolov5'));
}, ONNX_FIXTURES_TIMEOUT_MS);
afterAll(() => rmSync(modelsDir, { recursive: true, force: true }));

describe("the benchmark's model listing", () => {
  it('sees a zero-config folder as the model the gateway serves, beside a manifest folder', async () => {
    const models = await benchModels(modelsDir);
    expect(models.map((spec) => spec.manifest.name)).toEqual(['my-yolo', SSD]);
    const yolo = await benchModelSpec('my-yolo', modelsDir);
    expect(yolo.modelPath).toBe(join(modelsDir, 'my-yolo', 'model.onnx'));
    expect(yolo.manifest.decoder).toBe('yolov8');
    expect(yolo.manifest.input.width).toBe(640);
    expect(yolo.labels).toContain('dog');
  });

  it("names a folder it cannot serve with the gateway's reason, and one that does not exist", async () => {
    await expect(benchModelSpec('not-a-model', modelsDir)).rejects.toThrow(/not-a-model .* is not served: not an ONNX model/);
    await expect(benchModelSpec('.hidden', modelsDir)).rejects.toThrow(/no model \.hidden under/);
  });
});
