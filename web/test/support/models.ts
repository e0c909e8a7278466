import type { ModelInfo } from '@sightline/shared/protocol';

/** A model as GET /api/models describes it, with what the browser needs to run it (SSDLite's shape). */
export function modelInfo(overrides: Partial<ModelInfo> = {}): ModelInfo {
  const sha256 = 'ab'.repeat(32);
  return {
    name: 'ssd',
    title: 'SSD test model',
    kind: 'objects',
    default: true,
    input: { width: 300, height: 300, layout: 'NHWC', resize: 'stretch' },
    labels: ['person', 'bicycle'],
    scoreThreshold: 0.5,
    onDevice: {
      file: { url: `/api/models/ssd/model.onnx?sha256=${sha256}`, sha256, bytes: 1234 },
      license: 'Apache-2.0',
      input: { name: 'image', layout: 'NHWC', dtype: 'float32', width: 300, height: 300, resize: 'stretch', range: [-1, 1] },
      outputs: { scores: 'scores', boxes: 'boxes' },
      decoder: 'ssd',
      labels: ['person', 'bicycle', ''],
      classIds: 'coco',
      iouThreshold: 0.45,
      maxDetections: 100,
    },
    ...overrides,
  };
}
