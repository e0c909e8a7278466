import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ProtocolError } from '@sightline/shared/validation';
import { readModelSpec } from '../../../src/models/manifest.ts';
import { ModelRegistry } from '../../../src/models/model-registry.ts';

const MODELS = fileURLToPath(new URL('../../../../models/', import.meta.url));
const ssd = readModelSpec(`${MODELS}ssdlite-mobilenetv2-coco`);
const face = readModelSpec(`${MODELS}blazeface-back-256`);

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return error instanceof ProtocolError ? `${error.code}: ${error.message}` : String(error);
  }
  return undefined;
}

describe('model registry', () => {
  it('serves models by name; the default is the manifest marked default, else the first by name', () => {
    const registry = new ModelRegistry();
    registry.serve(face, 1);
    expect(registry.defaultModel).toBe('blazeface-back-256');
    registry.serve(ssd, 2);
    expect(registry.names).toEqual(['blazeface-back-256', 'ssdlite-mobilenetv2-coco']);
    expect(registry.defaultModel).toBe('ssdlite-mobilenetv2-coco');
    expect(registry.resolve(undefined).manifest.name).toBe('ssdlite-mobilenetv2-coco');
    expect(registry.resolve('blazeface-back-256')).toBe(registry.specs[0]);
  });

  it("honours the operator's default and threshold over the manifests'", () => {
    const registry = new ModelRegistry({ defaultModel: 'blazeface-back-256', scoreThreshold: 0.3 });
    registry.serve(ssd, 2);
    expect(registry.defaultModel).toBeUndefined();
    expect(codeOf(() => registry.resolve(undefined))).toMatch(/^unknown_model: no default model is being served; available: ssdlite/);
    registry.serve(face, 1);
    expect(registry.defaultModel).toBe('blazeface-back-256');
    expect(registry.specs.map((s) => s.scoreThreshold)).toEqual([0.3, 0.3]);
  });

  it('answers a name it lacks `unknown_model`, with the reason when the model is broken', () => {
    const registry = new ModelRegistry();
    registry.serve(ssd, 2);
    registry.setUnavailable('mine', 'task "segment" is not detection');
    expect(codeOf(() => registry.resolve('yolo-v99'))).toBe('unknown_model: unknown model "yolo-v99"; available: ssdlite-mobilenetv2-coco');
    expect(codeOf(() => registry.resolve('mine'))).toBe('unknown_model: model "mine" is unavailable: task "segment" is not detection');
    expect(registry.problems).toEqual([{ name: 'mine', reason: 'task "segment" is not detection' }]);
    registry.setUnavailable('mine', undefined);
    expect(registry.problems).toEqual([]);
  });

  it('describes what it serves for GET /api/models, the file of each for on-device runs, and what it cannot serve', () => {
    const registry = new ModelRegistry();
    registry.serve(ssd, 18_000_000);
    registry.setUnavailable('mine', 'not an ONNX file');
    const described = registry.describe();
    expect(described.defaultModel).toBe('ssdlite-mobilenetv2-coco');
    expect(described.unavailable).toEqual([{ name: 'mine', reason: 'not an ONNX file' }]);
    const [model] = described.models;
    expect(model!.labels).not.toContain('');
    expect(model!.onDevice!.labels.length).toBe(ssd.labels.length);
    expect(model!.onDevice!.file).toEqual({
      url: `/api/models/ssdlite-mobilenetv2-coco/model.onnx?sha256=${ssd.manifest.sha256}`,
      sha256: ssd.manifest.sha256,
      bytes: 18_000_000,
    });
  });

  it('withdraws a model whose folder is gone', () => {
    const registry = new ModelRegistry();
    registry.serve(ssd, 2);
    registry.withdraw('ssdlite-mobilenetv2-coco');
    expect(registry.names).toEqual([]);
    expect(registry.describe()).toMatchObject({ defaultModel: '', models: [] });
  });
});
