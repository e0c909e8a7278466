/**
 * A model opened in this thread the way the inference workers open theirs: the shipped models, real
 * onnxruntime, real photos, both decoders.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { expectedLabels, readPhoto } from '@sightline/shared/fixtures';
import { runFrame } from '@sightline/shared/model';
import { stageTimingsSchema } from '@sightline/shared/schemas';
import { readModelSpec } from '../../../src/models/manifest.ts';
import { openFramePath, openOnnxRunner, type OpenedFramePath } from '../../../src/inference/local-frame-path.ts';
import { missingLabels } from '../../support/labels.ts';
import { SHIPPED_MODELS_DIR } from '../../support/model-folder-fixtures.ts';

const SSD = 'ssdlite-mobilenetv2-coco';
const FACES = 'blazeface-back-256';
const spec = (name: string) => readModelSpec(join(SHIPPED_MODELS_DIR, name));
const OPTIONS = { threads: 1, maxPixels: 40_000_000 };
const opened: OpenedFramePath[] = [];
afterAll(async () => {
  for (const path of opened) await path.close();
});

async function open(name: string, jpegDecoder: 'turbo' | 'sharp'): Promise<OpenedFramePath> {
  const path = await openFramePath(spec(name), { ...OPTIONS, jpegDecoder });
  opened.push(path);
  return path;
}

describe('openFramePath', () => {
  it('runs the shipped SSD on dog.jpg and finds the dog where it is, with either decoder', async () => {
    const ssd = spec(SSD);
    for (const decoder of ['turbo', 'sharp'] as const) {
      const { path } = await open(SSD, decoder);
      const result = await runFrame(path, readPhoto('dog.jpg'), ssd.scoreThreshold);
      expect(result.decoder).toBe(decoder);
      expect([result.width, result.height]).toEqual([640, 480]);
      expect(missingLabels(result.detections, expectedLabels()['dog.jpg']![SSD]!), decoder).toEqual([]);
      // The dog sits low on the left of the 640 x 480 photo.
      const found = result.detections.find((d) => d.label === 'dog')!;
      const [x1, y1, x2, y2] = found.box;
      expect((x1 + x2) / 2, decoder).toBeLessThan(320);
      expect((y1 + y2) / 2, decoder).toBeGreaterThan(240);
      expect(Object.keys(result.stages).sort(), decoder).toEqual(
        Object.keys(stageTimingsSchema.shape)
          .filter((stage) => stage !== 'queueMs' && stage !== 'serverMs')
          .sort(),
      );
    }
  });

  it('runs the packaged BlazeFace and finds the face on the astronaut photo', async () => {
    const { path } = await open(FACES, 'turbo');
    const result = await runFrame(path, readPhoto('astronaut.jpg'), spec(FACES).scoreThreshold);
    expect(missingLabels(result.detections, expectedLabels()['astronaut.jpg']![FACES]!)).toEqual([]);
  });

  it('refuses an image no decoder takes as bad_image, and takes the next frame', async () => {
    const { path } = await open(SSD, 'turbo');
    const dog = readPhoto('dog.jpg');
    await expect(runFrame(path, dog.subarray(0, 2000), 0.5)).rejects.toMatchObject({ code: 'bad_image' });
    expect((await runFrame(path, dog, 0.5)).detections.map((d) => d.label)).toContain('dog');
  });
});

describe('openOnnxRunner', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sightline-runner-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("refuses a file that is not an ONNX model with onnxruntime's reason", async () => {
    const file = join(dir, 'model.onnx');
    writeFileSync(file, 'not a model');
    await expect(openOnnxRunner({ ...spec(SSD), modelPath: file }, 1)).rejects.toThrow(/Protobuf parsing failed/);
  });
});
