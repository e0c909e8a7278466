import { describe, expect, it } from 'vitest';
import { createDecoder } from '@sightline/shared/model';
import { onDeviceSpec } from '../../../src/inference/on-device-model.ts';
import { modelInfo } from '../../support/models.ts';

describe('onDeviceSpec', () => {
  it('rebuilds the manifest the shared model code reads, with the full label array', () => {
    const support = onDeviceSpec(modelInfo());
    if (!support.ok) throw new Error(support.reason);
    const { spec } = support;
    expect(spec.name).toBe('ssd');
    expect(spec.labels).toEqual(['person', 'bicycle', '']);
    expect(spec.file.bytes).toBe(1234);
    expect(spec.manifest).toMatchObject({
      name: 'ssd',
      decoder: 'ssd',
      classIds: 'coco',
      input: { name: 'image', range: [-1, 1], resize: 'stretch' },
      scoreThreshold: 0.5,
      iouThreshold: 0.45,
      maxDetections: 100,
    });
    // The same decoder factory as the gateway accepts it.
    expect(typeof createDecoder(spec.manifest)).toBe('function');
  });

  it('says why a model cannot run here: an older gateway, or a decoder this dashboard does not know', () => {
    const { onDevice: _, ...withoutFile } = modelInfo();
    const old = onDeviceSpec(withoutFile);
    expect(old).toEqual({ ok: false, reason: 'the gateway does not serve the file of SSD test model' });
    const newer = onDeviceSpec(modelInfo({ onDevice: { ...modelInfo().onDevice!, decoder: 'yolo' } }));
    expect(newer.ok).toBe(false);
    if (!newer.ok) expect(newer.reason).toMatch(/cannot run SSD test model \(decoder: .*\); reload the page/);
  });
});
