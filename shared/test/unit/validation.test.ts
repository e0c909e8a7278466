import { describe, expect, it } from 'vitest';
import { CLOSE_CODES, DROP_REASONS } from '../../src/protocol.ts';
import { ProtocolError, validateDetectQuery, validateHealthResponse, validateModelsResponse } from '../../src/validation.ts';

const models = {
  protocol: 1,
  defaultModel: 'ssdlite-mobilenetv2-coco',
  models: [
    {
      name: 'ssdlite-mobilenetv2-coco',
      title: 'SSDLite',
      kind: 'objects',
      default: true,
      input: { width: 300, height: 300, layout: 'NHWC', resize: 'stretch' },
      labels: ['person'],
      scoreThreshold: 0.5,
    },
  ],
};

describe('HTTP response validation', () => {
  it('accepts the model list the gateway sends and names what is wrong with anything else', () => {
    expect(validateModelsResponse(models)).toEqual(models);
    expect(() => validateModelsResponse({ ...models, models: 'none' })).toThrow(/GET \/api\/models.*models/);
    expect(() => validateModelsResponse({ ...models, models: [{ ...models.models[0], kind: 'cars' }] })).toThrow(/kind/);
  });

  it('accepts what a client needs to run a model itself, and an older model list without it', () => {
    const sha256 = 'a'.repeat(64);
    const onDevice = {
      file: { url: `/api/models/ssdlite-mobilenetv2-coco/model.onnx?sha256=${sha256}`, sha256, bytes: 18_065_067 },
      license: 'Apache-2.0',
      input: { name: 'image', layout: 'NHWC', dtype: 'float32', width: 300, height: 300, resize: 'stretch', range: [-1, 1] },
      outputs: { scores: 'scores', boxes: 'boxes' },
      decoder: 'ssd',
      labels: ['person', ''],
      classIds: 'coco',
      iouThreshold: 0.45,
      maxDetections: 100,
    };
    const withFile = { ...models, models: [{ ...models.models[0], onDevice }] };
    expect(validateModelsResponse(withFile)).toEqual(withFile);
    // A decoder kind this client does not know is still a valid model list.
    const newer = { ...models, models: [{ ...models.models[0], onDevice: { ...onDevice, decoder: 'yolo-v9' } }] };
    expect(validateModelsResponse(newer).models[0]!.onDevice!.decoder).toBe('yolo-v9');
    const badDigest = {
      ...models,
      models: [{ ...models.models[0], onDevice: { ...onDevice, file: { ...onDevice.file, sha256: 'xyz' } } }],
    };
    expect(() => validateModelsResponse(badDigest)).toThrow(/sha256/);
  });

  it('accepts a health answer, and ignores fields a newer gateway adds', () => {
    const health = { ok: true, protocol: 1, modelsLoaded: ['a'], uptimeS: 3 };
    expect(validateHealthResponse({ ...health, extra: 1 })).toEqual(health);
    expect(() => validateHealthResponse({ ok: 'yes' })).toThrow(/GET \/healthz/);
  });
});

describe('detect query', () => {
  it('coerces the query string and refuses unknown or out-of-range fields', () => {
    expect(validateDetectQuery({ model: 'm', threshold: '0.3', id: '4', ts: '1.5' })).toEqual({
      model: 'm',
      threshold: 0.3,
      id: 4,
      ts: 1.5,
    });
    expect(() => validateDetectQuery({ treshold: '0.3' })).toThrow(ProtocolError);
    expect(() => validateDetectQuery({ threshold: '2' })).toThrow(/threshold/);
  });
});

describe('protocol constants', () => {
  it('keeps close codes unique, and gateway-specific ones in the 4000-4999 private range', () => {
    const codes = Object.values(CLOSE_CODES);
    expect(new Set(codes).size).toBe(codes.length);
    expect(CLOSE_CODES.unsupportedProtocol).toBeGreaterThanOrEqual(4000);
    expect(DROP_REASONS).toContain('shutting_down');
  });
});
