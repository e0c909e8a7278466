import { describe, expect, it } from 'vitest';
import { createYoloV5Decoder } from '../../../../src/model/output-decoders/yolov5.ts';

/** [1, N, 5+nc]: one row per anchor, cx, cy, w, h, objectness, class scores. */
function output(anchors: number[][]) {
  return { output0: { type: 'float32', data: new Float32Array(anchors.flat()), dims: [1, anchors.length, anchors[0]!.length] } };
}

describe('yolov5 decoder ([1, N, 5+nc], objectness x class)', () => {
  const decode = createYoloV5Decoder({ outputs: { output: 'output0' }, input: { width: 640, height: 320 } });

  it('scores each anchor objectness times its best class score, boxes from centre and size in input pixels', () => {
    const candidates = decode(
      output([
        [320, 160, 64, 32, 0.9, 0.2, 0.8],
        [100, 100, 10, 10, 0.5, 0.4, 0.45], // 0.5 x 0.45 = 0.225: below 0.25
      ]),
      0.25,
    );
    expect(candidates).toHaveLength(1);
    expect(candidates[0]!.labelIndex).toBe(1);
    expect(candidates[0]!.score).toBeCloseTo(0.72, 6);
    expect(candidates[0]!.box.map((v) => +v.toFixed(4))).toEqual([0.45, 0.45, 0.55, 0.55]);
  });

  it('skips an anchor whose objectness is not above the threshold, however sure its class', () => {
    expect(decode(output([[320, 160, 64, 32, 0.25, 1, 1]]), 0.25)).toEqual([]);
  });

  it('rejects an output of another shape', () => {
    expect(() => decode({ output0: { type: 'float32', data: new Float32Array(5), dims: [1, 1, 5] } }, 0.5)).toThrow(
      /\[1, anchors, 5\+classes\]/,
    );
    expect(() => decode({ output0: { type: 'float32', data: new Float32Array(12), dims: [1, 3, 6] } }, 0.5)).toThrow(/yolov5 decoder/);
  });
});
