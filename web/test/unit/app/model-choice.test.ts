import { describe, expect, it } from 'vitest';
import type { ModelsResponse } from '@sightline/shared/protocol';
import { linkedModel, modelFallback } from '../../../src/app/model-choice.ts';
import { modelInfo } from '../../support/models.ts';

const ssd = modelInfo();
const faces = modelInfo({ name: 'faces', title: 'Faces', kind: 'faces', default: false, scoreThreshold: 0.6 });
const yolo = modelInfo({ name: 'my-yolo', title: 'my-yolo', default: false, scoreThreshold: 0.25 });
const response = (models = [ssd, faces], extra: Partial<ModelsResponse> = {}): ModelsResponse => ({
  protocol: 2,
  defaultModel: 'ssd',
  models,
  ...extra,
});

describe('modelFallback', () => {
  it('nothing to do while the chosen model is served, or before the list is known', () => {
    expect(modelFallback(response([ssd, faces, yolo]), 'my-yolo')).toBeUndefined();
    expect(modelFallback(undefined, 'my-yolo')).toBeUndefined();
  });

  it('the first load picks the gateway’s default, with nothing lost', () => {
    expect(modelFallback(response(), undefined)).toEqual({ model: ssd });
  });

  it('a chosen model gone from the list falls back to the default and is named', () => {
    expect(modelFallback(response(), 'my-yolo')).toEqual({ model: ssd, lost: { name: 'my-yolo' } });
  });

  it('with the gateway’s reason when it reports the model as unavailable', () => {
    const broken = response([ssd, faces], { unavailable: [{ name: 'my-yolo', reason: 'the file is not an ONNX model' }] });
    expect(modelFallback(broken, 'my-yolo')).toEqual({ model: ssd, lost: { name: 'my-yolo', reason: 'the file is not an ONNX model' } });
  });

  it('the first model when the default is not in the list; nothing when no model is served', () => {
    expect(modelFallback(response([faces], { defaultModel: 'ssd' }), 'my-yolo')?.model).toBe(faces);
    expect(modelFallback(response([], { defaultModel: '' }), 'my-yolo')).toBeUndefined();
  });
});

describe('linkedModel', () => {
  it('nothing before the list is known, or with no model to fall back on', () => {
    expect(linkedModel(undefined, 'faces')).toBeUndefined();
    expect(linkedModel(response([], { defaultModel: '' }), 'faces')).toBeUndefined();
  });

  it('a served model as named, or named in another case when only one model matches', () => {
    expect(linkedModel(response(), 'faces')).toEqual({ served: true, model: faces });
    expect(linkedModel(response(), 'FACES')).toEqual({ served: true, model: faces });
    const twins = modelInfo({ name: 'Faces', title: 'Other faces', default: false });
    expect(linkedModel(response([ssd, faces, twins]), 'FACES')).toMatchObject({ served: false, name: 'FACES' });
  });

  it('a model not served falls back to the default, with what is served, or the gateway’s reason', () => {
    expect(linkedModel(response(), 'nope')).toEqual({ served: false, name: 'nope', instead: ssd, servedNames: ['ssd', 'faces'] });
    const broken = response([ssd, faces], { unavailable: [{ name: 'my-yolo', reason: 'the file is not an ONNX model' }] });
    expect(linkedModel(broken, 'my-yolo')).toEqual({
      served: false,
      name: 'my-yolo',
      instead: ssd,
      reason: 'the file is not an ONNX model',
      servedNames: ['ssd', 'faces'],
    });
  });
});
