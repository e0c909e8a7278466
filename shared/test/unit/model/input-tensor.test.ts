import { describe, expect, it } from 'vitest';
import { buildInputTensor, type FloatBuffers } from '../../../src/model/input-tensor.ts';

/** The content fills the whole input: no letterbox bars. */
const full = (width: number, height: number) => ({ offsetX: 0, offsetY: 0, contentWidth: width, contentHeight: height });
const rgb = (width: number, height: number, values: number[]) => ({ data: new Uint8Array(values), width, height });
/** A float NHWC input of this size, 0..255 in, 0..255 out: the tensor holds the resampled pixel values themselves. */
const identitySpec = (width: number, height: number) => ({
  width,
  height,
  layout: 'NHWC' as const,
  dtype: 'float32' as const,
  range: [0, 255] as [number, number],
});
/** The red channel of an NHWC tensor, rounded to `digits`. */
const red = (t: { data: ArrayLike<number> }, digits = 3) =>
  Array.from(t.data)
    .filter((_, i) => i % 3 === 0)
    .map((v) => +v.toFixed(digits));

describe('tensor conversion', () => {
  it('scales 0..255 onto the manifest range, NHWC and NCHW', () => {
    const pixels = rgb(2, 1, [0, 255, 51, 102, 153, 204]);
    const spec = { width: 2, height: 1, dtype: 'float32' as const, range: [-1, 1] as [number, number] };
    const nhwc = buildInputTensor(pixels, { ...spec, layout: 'NHWC' }, full(2, 1));
    expect(nhwc.dims).toEqual([1, 1, 2, 3]);
    expect([...nhwc.data].map((v) => +v.toFixed(3))).toEqual([-1, 1, -0.6, -0.2, 0.2, 0.6]);
    const nchw = buildInputTensor(pixels, { ...spec, layout: 'NCHW' }, full(2, 1));
    expect(nchw.dims).toEqual([1, 3, 1, 2]);
    expect([...nchw.data].map((v) => +v.toFixed(3))).toEqual([-1, -0.2, 1, 0.2, -0.6, 0.6]);
  });

  it('passes uint8 values through', () => {
    const t = buildInputTensor(rgb(1, 1, [1, 2, 3]), { width: 1, height: 1, dtype: 'uint8', layout: 'NHWC', range: [0, 1] }, full(1, 1));
    expect([...t.data]).toEqual([1, 2, 3]);
  });

  it('resamples like TensorFlow ResizeBilinear (no half-pixel centres), on each axis', () => {
    // A 1.5x shrink samples at source x = 1.5i (beyond 1.5x, areas are averaged instead: below).
    const row = rgb(3, 1, [0, 0, 0, 10, 0, 0, 20, 0, 0]);
    expect(red(buildInputTensor(row, identitySpec(2, 1), full(2, 1)))).toEqual([0, 15]);
    // Enlarging interpolates, and the last source pixel repeats: source x = min(i / 2, 1).
    const pair = rgb(2, 1, [0, 0, 0, 100, 0, 0]);
    expect(red(buildInputTensor(pair, identitySpec(4, 1), full(4, 1)))).toEqual([0, 50, 100, 100]);
    // Vertically the same rule, and both axes combine bilinearly.
    const square = rgb(2, 2, [0, 0, 0, 100, 0, 0, 100, 0, 0, 200, 0, 0]);
    expect(red(buildInputTensor(square, identitySpec(4, 4), full(4, 4)))).toEqual([
      0, 50, 100, 100, 50, 100, 150, 150, 100, 150, 200, 200, 100, 150, 200, 200,
    ]);
  });

  it('fills a reused buffer completely: letterbox bars left from the last frame are cleared', () => {
    let kept = new Float32Array(0);
    const buffers: FloatBuffers = {
      acquire: (length) => (kept.length === length ? kept : (kept = new Float32Array(length))),
      release: () => undefined,
    };
    const spec = { width: 2, height: 1, layout: 'NHWC' as const, dtype: 'float32' as const, range: [0, 1] as [number, number] };
    const first = buildInputTensor(rgb(2, 1, [255, 255, 255, 255, 255, 255]), spec, full(2, 1), buffers);
    const second = buildInputTensor(
      rgb(2, 1, [0, 0, 0, 0, 0, 0]),
      spec,
      { offsetX: 0, offsetY: 0, contentWidth: 1, contentHeight: 1 },
      buffers,
    );
    expect(second.data).toBe(first.data);
    expect([...second.data]).toEqual([0, 0, 0, 0, 0, 0]); // the bar (second pixel) is cleared, not left at 1
  });

  it("fills letterbox bars with the manifest's pad value (Ultralytics' gray 114), in every resampling path", () => {
    const spec = { width: 4, height: 1, layout: 'NHWC' as const, dtype: 'float32' as const, range: [0, 1] as [number, number], pad: 114 };
    const gray = +(114 / 255).toFixed(4);
    const place = (contentWidth: number) => ({ offsetX: 1, offsetY: 0, contentWidth, contentHeight: 1 });
    // Copied at size, resampled bilinearly, area-averaged: bars at offset 0 and after the content.
    expect(red(buildInputTensor(rgb(2, 1, [255, 0, 0, 255, 0, 0]), spec, place(2)), 4)).toEqual([gray, 1, 1, gray]);
    expect(red(buildInputTensor(rgb(3, 1, [255, 0, 0, 255, 0, 0, 255, 0, 0]), spec, place(2)), 4)).toEqual([gray, 1, 1, gray]);
    const tall = rgb(1, 6, new Array<number>(18).fill(255));
    expect(red(buildInputTensor(tall, spec, place(1)), 4)).toEqual([gray, 1, gray, gray]);
    // The pad is a pixel value: it goes through the range like one, and into NCHW and uint8 alike.
    const signed = buildInputTensor(rgb(1, 1, [0, 0, 0]), { ...spec, range: [-1, 1], width: 2, layout: 'NCHW' }, place(1));
    expect([...signed.data].map((v) => +v.toFixed(4))).toEqual([
      +((114 / 255) * 2 - 1).toFixed(4),
      -1,
      +((114 / 255) * 2 - 1).toFixed(4),
      -1,
      +((114 / 255) * 2 - 1).toFixed(4),
      -1,
    ]);
    const bytes = buildInputTensor(rgb(1, 1, [7, 8, 9]), { ...spec, dtype: 'uint8', width: 2 }, place(1));
    expect([...bytes.data]).toEqual([114, 114, 114, 7, 8, 9]);
    // Absent, the bars stay black (range[0]) as before.
    const { pad: _pad, ...black } = spec;
    expect(red(buildInputTensor(rgb(2, 1, [255, 0, 0, 255, 0, 0]), black, place(2)), 4)).toEqual([0, 1, 1, 0]);
  });
});

describe('area averaging', () => {
  it('averages each output pixel over its footprint when shrinking by more than 1.5x, where bilinear would skip pixels', () => {
    // 6 pixels into 2: each output is the mean of 3 sources (bilinear would read 2 of them).
    const row = { data: new Uint8Array([0, 0, 0, 30, 0, 0, 60, 0, 0, 90, 0, 0, 120, 0, 0, 150, 0, 0]), width: 6, height: 1 };
    expect(red(buildInputTensor(row, identitySpec(2, 1), full(2, 1)))).toEqual([30, 120]);
    // 5 into 2: footprints of 2.5 pixels, the middle one split between both.
    const five = { data: new Uint8Array([0, 0, 0, 50, 0, 0, 100, 0, 0, 150, 0, 0, 200, 0, 0]), width: 5, height: 1 };
    expect(red(buildInputTensor(five, identitySpec(2, 1), full(2, 1)))).toEqual([40, 160]);
    // Both axes: a 4x4 checkerboard of 0 and 200 into 2x2 is flat grey.
    const board = new Uint8Array(4 * 4 * 3);
    for (let y = 0; y < 4; y++) for (let x = 0; x < 4; x++) board[(y * 4 + x) * 3] = (x + y) % 2 ? 200 : 0;
    expect(red(buildInputTensor({ data: board, width: 4, height: 4 }, identitySpec(2, 2), full(2, 2)))).toEqual([100, 100, 100, 100]);
  });

  it('keeps an axis that does not shrink exact while the other one is averaged', () => {
    // 3 wide into 3, 6 tall into 2 (a stretch): columns pass through, rows average 3 by 3.
    const column = (x: number) => [0, 30, 60, 90, 120, 150].map((v) => v + x);
    const data = new Uint8Array(3 * 6 * 3);
    for (let y = 0; y < 6; y++) for (let x = 0; x < 3; x++) data[(y * 3 + x) * 3] = column(x)[y]!;
    expect(red(buildInputTensor({ data, width: 3, height: 6 }, identitySpec(3, 2), full(3, 2)))).toEqual([30, 31, 32, 120, 121, 122]);
  });
});
