import { describe, expect, it } from 'vitest';
import { p95Growth, periodFigures, pooledFigures, windowFigures, type FrameSample } from '../../../webrtc/figures.ts';

const detected = (sentAt: number, latencyMs: number, bytes = 1000): FrameSample => ({ sentAt, outcome: 'detected', latencyMs, bytes });

describe('WebRTC figures', () => {
  it('counts the frames captured in the period by outcome, latency percentiles over the detected ones', () => {
    const samples: FrameSample[] = [
      detected(-50, 999), // warm-up: outside
      detected(0, 10),
      detected(100, 20),
      detected(200, 30),
      { sentAt: 300, outcome: 'lost', bytes: 1000 },
      { sentAt: 400, outcome: 'refused', bytes: 1000, reason: 'dropped:superseded' },
      { sentAt: 500, outcome: 'skipped', bytes: 0 },
      detected(1000, 5), // the end is exclusive
    ];
    const f = periodFigures(samples, 0, 1000, 0);
    expect(f).toMatchObject({ fromS: 0, toS: 1, sent: 5, detected: 3, lost: 1, refused: 1, skipped: 1, detectionsPerS: 3 });
    expect(f.reasons).toEqual({ 'dropped:superseded': 1 });
    expect([f.p50, f.max]).toEqual([20, 30]);
    expect(f.p95).toBeCloseTo(29);
    // Bytes of the frames that went out, per frame and per second of the period.
    expect(f.bytesPerFrame).toBe(1000);
    expect(f.bytesPerS).toBe(5000);
  });

  it('gives NaN latencies for a period with nothing detected', () => {
    const f = periodFigures([{ sentAt: 10, outcome: 'lost', bytes: 5 }], 0, 1000, 0);
    expect(f.detected).toBe(0);
    expect(f.p50).toBeNaN();
    expect(f.max).toBeNaN();
  });

  it('cuts the period into windows, the last one shorter, so a delay that grows shows window by window', () => {
    // One frame a second whose latency grows by 10 ms a second: 25 s in 10 s windows.
    const samples = Array.from({ length: 25 }, (_, s) => detected(1000 + s * 1000, 50 + 10 * s));
    const windows = windowFigures(samples, { originMs: 1000, endMs: 26_000, windowMs: 10_000 });
    expect(windows.map((w) => [w.fromS, w.toS, w.detected])).toEqual([
      [0, 10, 10],
      [10, 20, 10],
      [20, 25, 5],
    ]);
    expect(windows.map((w) => w.detectionsPerS)).toEqual([1, 1, 1]);
    expect(windows.map((w) => w.p50)).toEqual([95, 195, 270]);
    expect(p95Growth(windows)).toBeCloseTo(windows[2]!.p95 - windows[0]!.p95);
    expect(p95Growth(windows)).toBeGreaterThan(150);
  });

  it('says nothing about growth from fewer than two windows that detected enough', () => {
    const windows = windowFigures([detected(0, 10), detected(15_000, 10)], { originMs: 0, endMs: 20_000, windowMs: 10_000 });
    expect(p95Growth(windows)).toBeUndefined();
    expect(p95Growth(windows, 1)).toBe(0);
  });

  it('refuses a window of no width', () => {
    expect(() => windowFigures([], { originMs: 0, endMs: 10, windowMs: 0 })).toThrow(/window/);
  });
});

describe('WebRTC figures pooled over halves', () => {
  it('lays the measured periods end to end: percentiles over every frame, rates over the summed time', () => {
    // Two runs on unrelated clocks; frames outside each measured period (warm-up, after the end) are left out.
    const first = { samples: [detected(900, 999), detected(1000, 10), detected(1500, 20)], originMs: 1000, endMs: 2000 };
    const second = { samples: [detected(50_000, 30), detected(52_500, 40), detected(53_000, 999)], originMs: 50_000, endMs: 53_000 };
    const f = pooledFigures([first, second]);
    expect([f.fromS, f.toS]).toEqual([0, 4]);
    expect(f.detected).toBe(4);
    expect(f.detectionsPerS).toBe(1);
    expect(f.p50).toBe(25);
    expect(f.max).toBe(40);
  });

  it('refuses to pool nothing', () => {
    expect(() => pooledFigures([])).toThrow(/no runs/);
  });
});
