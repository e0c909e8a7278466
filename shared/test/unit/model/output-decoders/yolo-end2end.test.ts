import { describe, expect, it } from 'vitest';
import { createYoloEnd2EndDecoder } from '../../../../src/model/output-decoders/yolo-end2end.ts';

/** [1, K, 6]: x1, y1, x2, y2 in input pixels, score, class. */
function output(rows: number[][]) {
  return { output0: { type: 'float32', data: new Float32Array(rows.flat()), dims: [1, rows.length, 6] } };
}

describe('yolo-end2end decoder ([1, K, 6], no NMS)', () => {
  const decode = createYoloEnd2EndDecoder({ outputs: { output: 'output0' }, input: { width: 640, height: 480 } });

  it('keeps the rows above the threshold as they are, corners in input pixels, class from the last column', () => {
    const candidates = decode(
      output([
        [64, 48, 320, 240, 0.9, 16],
        // Overlapping the first, same class: kept, the model chose both.
        [70, 50, 320, 240, 0.8, 16],
        [0, 0, 700, 500, 0.5, 2],
        [10, 10, 20, 20, 0.1, 0],
        [0, 0, 0, 0, 0, 0], // padding rows past the last detection
      ]),
      0.25,
    );
    expect(candidates.map((c) => ({ ...c, score: +c.score.toFixed(3), box: c.box.map((v) => +v.toFixed(4)) }))).toEqual([
      { labelIndex: 16, score: 0.9, box: [0.1, 0.1, 0.5, 0.5] },
      { labelIndex: 16, score: 0.8, box: [0.1094, 0.1042, 0.5, 0.5] },
      { labelIndex: 2, score: 0.5, box: [0, 0, 1, 1] },
    ]);
  });

  it('rejects an output that is not [1, K, 6]', () => {
    expect(() => decode({ output0: { type: 'float32', data: new Float32Array(84), dims: [1, 84, 1] } }, 0.5)).toThrow(
      /yolo-end2end decoder: output0 is \[1,84,1\], expected \[1, detections, 6\]/,
    );
  });
});
