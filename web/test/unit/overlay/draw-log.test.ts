import { describe, expect, it } from 'vitest';
import { debugHook, debugRequested, describeDraw, DrawLog } from '../../../src/overlay/draw-log.ts';
import type { OverlayScene } from '../../../src/overlay/overlay-scene.ts';

const scene: OverlayScene = {
  mode: 'predicted',
  width: 400,
  height: 300,
  items: [
    { trackId: 2, label: 'cat', classId: 17, score: 0.9, box: [40, 30, 140, 130], trail: [] },
    { label: 'bird', classId: 16, score: 0.55, box: [0, 0, 10, 10], trail: [] },
  ],
  receivedAt: 5,
  leadMs: 120,
};

describe('the debug hook', () => {
  it('is on only with ?debug in the URL', () => {
    expect(debugRequested('?debug')).toBe(true);
    expect(debugRequested('?token=abc&debug=1')).toBe(true);
    expect(debugRequested('')).toBe(false);
    expect(debugRequested('?debugging')).toBe(false);
  });

  it('describes a drawing in the picture’s own pixels, with the frame on screen and the lead', () => {
    const drawn = describeDraw('predicted', 1234, { token: 7, capturedAt: 1234, clock: 'capture', mediaTime: 3.2 }, scene, {
      width: 640,
      height: 480,
    });
    expect(drawn).toMatchObject({ mode: 'predicted', displayAt: 1234, mediaTime: 3.2, clock: 'capture', leadMs: 120 });
    expect(drawn.boxes).toEqual([
      { trackId: 2, label: 'cat', score: 0.9, box: [64, 48, 224, 208] },
      { label: 'bird', score: 0.55, box: [0, 0, 16, 16] },
    ]);
    // A still image, nothing to draw yet.
    expect(describeDraw('raw', 50, undefined, undefined, { width: 640, height: 480 })).toMatchObject({
      mode: 'raw',
      displayAt: 50,
      boxes: [],
    });
  });

  it('keeps the last drawings up to its capacity, for window.__sightline', () => {
    const log = new DrawLog(2);
    const hook = debugHook(log);
    for (const displayAt of [1, 2, 3]) log.add(describeDraw('raw', displayAt, undefined, scene, { width: 400, height: 300 }));
    expect(hook.draws().map((drawn) => drawn.displayAt)).toEqual([2, 3]);
    hook.clearDraws();
    expect(hook.draws()).toEqual([]);
  });
});
