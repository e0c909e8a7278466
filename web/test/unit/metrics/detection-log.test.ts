import { describe, expect, it } from 'vitest';
import { DetectionLog, detectionRows, type DetectionRow } from '../../../src/metrics/detection-log.ts';
import { deviceFrame } from '../../support/outcomes.ts';

const answer = {
  frame: deviceFrame(9, 1000, { path: 'gateway', capturedAt: 990.5 }),
  width: 400,
  height: 300,
  detections: [
    { label: 'dog', classId: 18, score: 0.9, box: [10, 20, 110, 220] as [number, number, number, number] },
    { label: 'cat', classId: 17, score: 0.6, box: [200, 50, 260, 120] as [number, number, number, number] },
  ],
  trackIds: [4, undefined],
};

describe('detectionRows', () => {
  it('is one row per detection: its frame, wall-clock capture time, track id (null without one) and box', () => {
    expect(detectionRows(answer, 1_700_000_000_000)).toEqual([
      {
        frameId: 9,
        path: 'gateway',
        capturedAt: 1_700_000_000_990.5,
        trackId: 4,
        label: 'dog',
        classId: 18,
        score: 0.9,
        x1: 10,
        y1: 20,
        x2: 110,
        y2: 220,
        width: 400,
        height: 300,
      },
      expect.objectContaining({ frameId: 9, trackId: null, label: 'cat', x1: 200 }),
    ]);
  });
});

describe('DetectionLog', () => {
  const rows = (count: number, from = 0): DetectionRow[] =>
    detectionRows({ ...answer, frame: { ...answer.frame, id: from } }, 0)
      .slice(0, 1)
      .flatMap((row) => Array.from({ length: count }, (_, i) => ({ ...row, frameId: from + i })));

  it('keeps every row up to its cap, the oldest going first, and says how many went', () => {
    const log = new DetectionLog(5);
    let changes = 0;
    log.changed.subscribe(() => changes++);
    log.add(rows(3));
    log.add([]);
    log.add(rows(4, 3));
    expect(log.all().map((row) => row.frameId)).toEqual([2, 3, 4, 5, 6]);
    expect(log.size).toBe(5);
    expect(log.discarded).toBe(2);
    expect(changes).toBe(2);
    log.clear();
    expect(log.all()).toEqual([]);
    expect(log.discarded).toBe(0);
  });
});
