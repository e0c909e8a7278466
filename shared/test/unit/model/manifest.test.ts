import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { manifestSchema } from '../../../src/model/manifest.ts';

const MODELS_DIR = fileURLToPath(new URL('../../../../models/', import.meta.url));

const yolo = {
  name: 'my-yolo',
  title: 'my-yolo',
  kind: 'objects',
  file: 'model.onnx',
  sha256: 'a'.repeat(64),
  license: 'unknown',
  input: { name: 'images', layout: 'NCHW', dtype: 'float32', width: 640, height: 640, resize: 'letterbox', range: [0, 1], pad: 114 },
  outputs: { output: 'output0' },
  decoder: 'yolov8',
  labels: 'labels.json',
  scoreThreshold: 0.25,
  iouThreshold: 0.7,
  maxDetections: 300,
};

describe('manifest schema', () => {
  it('still reads the shipped manifests, their letterbox bars black', () => {
    const folders = readdirSync(MODELS_DIR).filter((f) => existsSync(`${MODELS_DIR}${f}/manifest.json`));
    expect(folders.length).toBeGreaterThanOrEqual(2);
    for (const folder of folders) {
      const manifest = manifestSchema.parse(JSON.parse(readFileSync(`${MODELS_DIR}${folder}/manifest.json`, 'utf8')));
      expect(manifest.input.pad ?? 0).toBe(0);
    }
  });

  it('accepts the three Ultralytics layouts and a pad value', () => {
    for (const decoder of ['yolov8', 'yolov5', 'yolo-end2end']) {
      expect(manifestSchema.parse({ ...yolo, decoder }).decoder).toBe(decoder);
    }
    expect(manifestSchema.parse(yolo).input.pad).toBe(114);
  });

  it('refuses a pad that is not a 0..255 pixel value, and unknown decoders', () => {
    for (const pad of [-1, 256, 0.5]) expect(manifestSchema.safeParse({ ...yolo, input: { ...yolo.input, pad } }).success).toBe(false);
    expect(manifestSchema.safeParse({ ...yolo, decoder: 'yolov7' }).success).toBe(false);
  });
});
