import { describe, expect, it } from 'vitest';
import { lostModelText, modelSummary, unservedLinkText } from '../../../src/ui/models-text.ts';
import { modelInfo } from '../../support/models.ts';

describe('model picker wording', () => {
  it('sums a model up: kind, classes, input size', () => {
    expect(modelSummary(modelInfo())).toBe('Objects · 2 classes · input 300×300');
    const faces = modelInfo({ kind: 'faces', labels: ['face'], input: { width: 256, height: 256, layout: 'NHWC', resize: 'letterbox' } });
    expect(modelSummary(faces)).toBe('Faces · 1 class · input 256×256');
  });

  it('says which model left the list, why when known, and what is used instead', () => {
    expect(lostModelText({ name: 'my-yolo' }, { title: 'SSDLite MobileNetV2' })).toBe(
      '“my-yolo” is no longer served by the gateway. Using SSDLite MobileNetV2 instead.',
    );
    expect(lostModelText({ name: 'my-yolo', reason: 'the file is not an ONNX model' }, { title: 'SSDLite MobileNetV2' })).toBe(
      '“my-yolo” is no longer served by the gateway: the file is not an ONNX model. Using SSDLite MobileNetV2 instead.',
    );
  });

  it('says the model a link named is not served here, what is, and what is used instead', () => {
    const instead = modelInfo({ title: 'SSDLite MobileNetV2' });
    expect(unservedLinkText({ served: false, name: 'nope', instead, servedNames: ['ssd', 'faces'] })).toBe(
      'The address’s model=nope is not served by this gateway (it serves ssd, faces). Using SSDLite MobileNetV2 instead.',
    );
    expect(unservedLinkText({ served: false, name: 'my-yolo', instead, reason: 'not an ONNX model', servedNames: ['ssd'] })).toBe(
      'The address’s model=my-yolo is not served by this gateway: not an ONNX model. Using SSDLite MobileNetV2 instead.',
    );
  });
});
