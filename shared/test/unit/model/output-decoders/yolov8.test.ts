import { describe, expect, it } from 'vitest';
import { createYoloV8Decoder } from '../../../../src/model/output-decoders/yolov8.ts';

/** [1, 4+nc, N] from one row per anchor: cx, cy, w, h, then its class scores (transposed here, as the model emits it). */
function output(anchors: number[][]) {
  const rows = anchors[0]!.length;
  const data = new Float32Array(rows * anchors.length);
  anchors.forEach((values, a) => values.forEach((v, r) => (data[r * anchors.length + a] = v)));
  return { output0: { type: 'float32', data, dims: [1, rows, anchors.length] } };
}

const round = (box: number[]) => box.map((v) => +v.toFixed(4));

describe('yolov8 decoder ([1, 4+nc, N], no objectness)', () => {
  // A 320 wide, 160 high input: boxes are normalised by each axis on its own.
  const decode = createYoloV8Decoder({ outputs: { output: 'output0' }, input: { width: 320, height: 160 } });

  it('reads each anchor above the threshold once, with its best class, boxes from centre and size in input pixels', () => {
    const candidates = decode(
      output([
        [160, 80, 64, 32, 0.1, 0.9, 0.3],
        [32, 16, 64, 32, 0.2, 0.1, 0.24], // nothing above 0.25
        [300, 150, 80, 40, 0.6, 0.1, 0.7],
      ]),
      0.25,
    );
    expect(candidates.map((c) => ({ ...c, box: round(c.box) }))).toEqual([
      { labelIndex: 1, score: expect.closeTo(0.9, 6), box: [0.4, 0.4, 0.6, 0.6] },
      // Clamped to the input where the box hangs over its edge.
      { labelIndex: 2, score: expect.closeTo(0.7, 6), box: [0.8125, 0.8125, 1, 1] },
    ]);
  });

  it('keeps the first of equal best scores (the lower class, as argmax does) and needs the score strictly above the threshold', () => {
    const candidates = decode(output([[100, 100, 10, 10, 0.5, 0.5, 0.25]]), 0.25);
    expect(candidates.map((c) => c.labelIndex)).toEqual([0]);
    expect(decode(output([[100, 100, 10, 10, 0.25, 0.25, 0.25]]), 0.25)).toEqual([]);
  });

  it('reports anchors in anchor order whichever class row found them first', () => {
    const candidates = decode(
      output([
        [10, 10, 4, 4, 0, 0, 0.8],
        [20, 20, 4, 4, 0.9, 0, 0],
        [30, 30, 4, 4, 0, 0.7, 0],
      ]),
      0.5,
    );
    expect(candidates.map((c) => c.labelIndex)).toEqual([2, 0, 1]);
  });

  it('starts every frame afresh (its per-anchor scratch is reused between frames)', () => {
    expect(
      decode(
        output([
          [100, 100, 10, 10, 0.9, 0.1],
          [50, 50, 10, 10, 0.8, 0.1],
        ]),
        0.5,
      ),
    ).toHaveLength(2);
    const next = decode(
      output([
        [100, 100, 10, 10, 0.1, 0.6],
        [50, 50, 10, 10, 0.1, 0.1],
      ]),
      0.5,
    );
    expect(next.map((c) => [c.labelIndex, +c.score.toFixed(3)])).toEqual([[1, 0.6]]);
    // Another anchor count reallocates it.
    expect(
      decode(
        output([
          [100, 100, 10, 10, 0.9],
          [50, 50, 10, 10, 0.8],
          [20, 20, 10, 10, 0.7],
        ]),
        0.5,
      ),
    ).toHaveLength(3);
  });

  it('finds every anchor even when nearly every score is above a low threshold', () => {
    // 300 anchors x 80 classes, all above 0.1: more than the decoder notes at first, so it grows them.
    const anchors = Array.from({ length: 300 }, (_, a) => [
      a + 10,
      50,
      4,
      4,
      ...Array.from({ length: 80 }, (_, c) => (c === a % 80 ? 0.9 : 0.5)),
    ]);
    const candidates = decode(output(anchors), 0.1);
    expect(candidates).toHaveLength(300);
    expect(candidates.every((c, a) => c.labelIndex === a % 80 && Math.abs(c.score - 0.9) < 1e-6)).toBe(true);
    // And the next frame at the usual threshold is unaffected.
    expect(decode(output([[100, 100, 10, 10, 0.1, 0.6]]), 0.25).map((c) => c.labelIndex)).toEqual([1]);
  });

  it('drops boxes with no area left inside the input', () => {
    expect(
      decode(
        output([
          [-50, 80, 20, 20, 0.9],
          [160, 80, 0, 20, 0.9],
        ]),
        0.5,
      ),
    ).toEqual([]);
  });

  it('rejects an output of another shape, or a manifest without the output role', () => {
    expect(() => decode({ output0: { type: 'float32', data: new Float32Array(84), dims: [1, 84] } }, 0.5)).toThrow(
      /\[1,84\].*\[1, 4\+classes, anchors\]/,
    );
    expect(() => decode({ output0: { type: 'float32', data: new Float32Array(8), dims: [2, 4, 1] } }, 0.5)).toThrow(/yolov8 decoder/);
    expect(() => decode({ other: { type: 'float32', data: new Float32Array(5), dims: [1, 5, 1] } }, 0.5)).toThrow(
      /output0 not in model results/,
    );
    expect(() => createYoloV8Decoder({ outputs: {}, input: { width: 1, height: 1 } })).toThrow(/manifest.outputs.output is missing/);
  });
});
