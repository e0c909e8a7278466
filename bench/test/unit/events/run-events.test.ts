import { describe, expect, it } from 'vitest';
import { side, type CameraRules } from '@sightline/shared/events';
import type { Detection } from '@sightline/shared/schemas';
import { runEvents } from '../../../events/run-events.ts';
import { parseSeqInfo } from '../../../events/seqinfo.ts';

/** One person walking right at 10 px a frame, feet at y 300, frames 1..40 (x 130 to 520): crosses x 320 at frame 20. */
function walker(frames = 40): Map<number, Detection[]> {
  const byFrame = new Map<number, Detection[]>();
  for (let f = 1; f <= frames; f++) {
    const x = 120 + 10 * f;
    byFrame.set(f, [{ label: 'person', classId: 1, score: 0.9, box: [x - 20, 180, x + 20, 300] }]);
  }
  return byFrame;
}

/** Upright, drawn upwards: the picture's right is side +1, so walking right is `in` (bench:events' direction check). */
const rules: CameraRules = { lines: [{ name: 'door', from: [0.5, 0.9], to: [0.5, 0.1] }], zones: [] };

describe('runEvents', () => {
  it("runs the gateway's tracker and rule engine: one person crossing is one `in`, with its frame and an id", () => {
    expect(side(rules.lines[0]!, [0.6, 0.5])).toBe(1);
    const events = runEvents(walker(), rules, { fps: 25, width: 640, height: 480, camera: 'file' });
    expect(events).toHaveLength(1);
    const [event] = events;
    expect(event).toMatchObject({
      id: 'file-1',
      camera: 'file',
      rule: 'door',
      type: 'line_cross',
      direction: 'in',
      label: 'person',
      score: 0.9,
    });
    // The anchor is a tenth of the box's width (4 px) past the line at frame 20.5; averaged with the frame before, at 21.
    expect(event!.frame).toBeGreaterThanOrEqual(20);
    expect(event!.frame).toBeLessThanOrEqual(23);
    expect(event!.capturedAt).toBe((event!.frame! * 1000) / 25);
    expect(event!.detectedAt).toBe(event!.capturedAt);
  });

  it('ends the stream after the last frame: an object inside a zone leaves it then', () => {
    const zone: CameraRules = {
      lines: [],
      zones: [
        {
          name: 'right',
          polygon: [
            [0.6, 0],
            [1, 0],
            [1, 1],
            [0.6, 1],
          ],
        },
      ],
    };
    const events = runEvents(walker(), zone, { fps: 25, width: 640, height: 480, camera: 'cam', lastFrame: 45 });
    expect(events.map((e) => [e.type, e.frame])).toEqual([
      ['zone_enter', expect.any(Number)],
      ['zone_leave', 45],
    ]);
  });
});

describe('parseSeqInfo', () => {
  it("reads MOTChallenge's seqinfo.ini", () => {
    const text = '[Sequence]\nname=TUD-Campus\nimDir=img1\nframeRate=25\nseqLength=71\nimWidth=640\nimHeight=480\nimExt=.jpg\n';
    expect(parseSeqInfo(text, 'x')).toEqual({ path: 'x', width: 640, height: 480, fps: 25, length: 71 });
    expect(parseSeqInfo('[Sequence]\nframeRate=0\n', 'y')).toEqual({ path: 'y' });
  });
});
