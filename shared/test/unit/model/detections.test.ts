import { describe, expect, it } from 'vitest';
import { candidatesToDetections, type LabelledModel } from '../../../src/model/detections.ts';
import type { Candidate } from '../../../src/model/output-decoders/types.ts';

describe('candidates to detections', () => {
  const model = (decoder: LabelledModel['manifest']['decoder'], maxDetections = 10): LabelledModel => ({
    manifest: {
      input: { name: 'images', layout: 'NCHW', dtype: 'float32', width: 100, height: 100, resize: 'stretch', range: [0, 1], pad: 114 },
      iouThreshold: 0.5,
      maxDetections,
      decoder,
    },
    labels: ['cat', 'dog', ''],
  });
  const image = { width: 200, height: 100 };
  const whole = { offsetX: 0, offsetY: 0, contentWidth: 100, contentHeight: 100 };
  const overlapping: Candidate[] = [
    { labelIndex: 0, score: 0.8, box: [0.1, 0.1, 0.5, 0.5] },
    { labelIndex: 0, score: 0.9, box: [0.12, 0.1, 0.5, 0.5] },
    { labelIndex: 1, score: 0.7, box: [0.1, 0.1, 0.5, 0.5] },
    { labelIndex: 2, score: 0.95, box: [0.6, 0.6, 0.9, 0.9] },
  ];

  it('suppresses overlaps per class for decoders whose models score one object from several anchors', () => {
    const detections = candidatesToDetections(overlapping, model('yolov8'), whole, image);
    expect(detections.map((d) => [d.label, d.score])).toEqual([
      ['cat', 0.9],
      ['dog', 0.7],
    ]);
    expect(detections[0]!.box).toEqual([24, 10, 100, 50]);
  });

  it('keeps every box of an end-to-end model (it chose them itself), best first, at most maxDetections, unlabelled columns dropped', () => {
    expect(candidatesToDetections(overlapping, model('yolo-end2end'), whole, image).map((d) => [d.label, d.score])).toEqual([
      ['cat', 0.9],
      ['cat', 0.8],
      ['dog', 0.7],
    ]);
    expect(candidatesToDetections(overlapping, model('yolo-end2end', 2), whole, image)).toHaveLength(2);
  });
});
