import { describe, expect, it } from 'vitest';
import { cameraFigures, spread, windowBounds } from '../../../reliability/camera-figures.ts';
import { measurement } from '../../support/measurements.ts';

describe('per-camera figures', () => {
  // Two cameras, 10 frames each over 4 s (one every 400 ms): camera 0 gets every frame detected; camera 1 every
  // other one refused, one held (never sent) and one unanswered.
  const frames = [
    ...Array.from({ length: 10 }, (_, i) => measurement({ client: 0, seq: i, startMs: i * 400 })),
    ...Array.from({ length: 10 }, (_, i) =>
      measurement({
        client: 1,
        seq: i,
        startMs: i * 400,
        ...(i === 9
          ? { outcome: 'held' as const }
          : i === 8
            ? { outcome: 'timeout' as const, latencyMs: Number.NaN }
            : i % 2
              ? { outcome: 'dropped' as const, errorCode: 'overloaded' }
              : {}),
      }),
    ),
    measurement({ client: 1, warmup: true }),
  ];

  it("counts each camera's uplink, refusals, detections, held and unanswered frames", () => {
    const report = cameraFigures(frames, 2, 4, 2);
    expect(report.cameras).toEqual([
      { camera: 0, sent: 10, refused: 0, detected: 10, held: 0, unanswered: 0, sentPerS: 2.5, refusedPerS: 0 },
      { camera: 1, sent: 9, refused: 4, detected: 4, held: 1, unanswered: 1, sentPerS: 2.25, refusedPerS: 1 },
    ]);
    expect(report.detected).toEqual({ min: 4, max: 10, mean: 7, ratio: 2.5 });
    expect(report.sent.ratio).toBeCloseTo(10 / 9);
  });

  it('compares the cameras per window of scheduled send time, and names the worst', () => {
    const report = cameraFigures(frames, 2, 4, 2);
    // 0-2 s: frames 0-4 (camera 1 detects 0, 2, 4); 2-4 s: frames 5-9 (camera 1 detects 6 only).
    expect(report.windows.map((w) => [w.fromS, w.toS, w.detected.max, w.detected.min])).toEqual([
      [0, 2, 5, 3],
      [2, 4, 5, 1],
    ]);
    expect(report.worstWindowRatio).toBe(5);
  });

  it('a camera that got nothing makes the ratio infinite', () => {
    expect(cameraFigures(frames, 3, 4).detected.ratio).toBe(Number.POSITIVE_INFINITY);
    expect(spread([])).toMatchObject({ min: Number.NaN, ratio: Number.NaN });
  });

  it('merges a short last window into the one before it', () => {
    expect(windowBounds(90, 60)).toEqual([
      [0, 60],
      [60, 90],
    ]);
    expect(windowBounds(61, 60)).toEqual([[0, 61]]);
    expect(windowBounds(30, 60)).toEqual([[0, 30]]);
    expect(windowBounds(120, 60)).toEqual([
      [0, 60],
      [60, 120],
    ]);
  });
});
