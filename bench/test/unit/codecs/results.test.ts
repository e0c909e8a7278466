import { describe, expect, it } from 'vitest';
import { framePairs, linkRow, pooledLinkRow, qualityRow, tally } from '../../../codecs/results.ts';
import type { FrameResult } from '../../../codecs/wire-run.ts';

const dog = { label: 'dog', classId: 18, score: 0.9, box: [0, 0, 10, 10] as [number, number, number, number] };

function frame(outcome: string, latencyMs: number, detections = outcome === 'detections' ? [dog] : []): FrameResult {
  return { outcome, detections, latencyMs, decodeMs: outcome === 'detections' ? 2 : undefined, serverMs: 20, wireBytes: 1000 };
}

describe('linkRow', () => {
  it('counts detections per second from the first answer on, leaving the first frame out', () => {
    const frames = [frame('detections', 500), frame('detections', 100), frame('error:needs_keyframe', 100), frame('detections', 100)];
    // Two detections among the three frames after the first, over the 300 ms from the first answer to the last.
    const row = linkRow({ name: 'lte', spec: 'lte' }, { codec: 'vp8', setting: '500 kbit/s' }, frames, 300);
    expect(row.detectionsPerSecond).toBeCloseTo(2 / 0.3, 9);
    expect(row.failures).toEqual({ 'error:needs_keyframe': 1 });
    expect(row.latencyP50).toBe(100);
    expect(row.wireBytesMean).toBe(1000);
    expect(row.inFlight).toBe(1);
    expect(linkRow({ name: 'lte', spec: 'lte' }, { codec: 'vp8', setting: '500 kbit/s' }, frames, 300, 3).inFlight).toBe(3);
  });
});

describe('pooledLinkRow', () => {
  it("adds the parts' detections and steady times, each part's first frame left out, and pools detected frames' latency", () => {
    const first = [frame('detections', 500), frame('detections', 100), frame('detections', 120)];
    const second = [frame('detections', 400), frame('dropped:superseded', 1), frame('detections', 140)];
    const row = pooledLinkRow({ name: 'lte', spec: 'lte' }, { codec: 'vp8', setting: '500 kbit/s' }, [
      { frames: first, steadyMs: 200 },
      { frames: second, steadyMs: 200 },
    ]);
    // 2 + 1 detections after each part's first frame over 400 ms.
    expect(row.detectionsPerSecond).toBeCloseTo(3 / 0.4, 9);
    expect(row.frames).toBe(6);
    expect(row.failures).toEqual({ 'dropped:superseded': 1 });
    // The superseded answer (1 ms) is not a latency: 100, 120, 140, 400, 500.
    expect(row.latencyP50).toBe(140);
  });
});

describe('qualityRow', () => {
  it('pairs frames in order and counts a frame answered otherwise as detecting nothing', () => {
    const truth = [frame('detections', 10), frame('detections', 10)];
    const encoded = [frame('detections', 10), frame('dropped:superseded', 10)];
    const row = qualityRow(
      'slideshow',
      { codec: 'vp8', setting: '250 kbit/s', level: 250, payloadBytes: [4000, 1000], encodeCpuMsPerFrame: 3 },
      encoded,
      truth,
      undefined,
    );
    expect(row.agreement.map).toBe(0.5);
    expect(row.agreement.labelMatch).toBe(0.5);
    expect(row.failures).toEqual({ 'dropped:superseded': 1 });
    expect(row.bytesMean).toBe(2500);
    expect(row.decodeMsP50).toBe(2);
  });

  it('refuses runs of different lengths rather than pair the wrong frames', () => {
    expect(() => framePairs([frame('detections', 1)], [])).toThrow(/0 frames against 1/);
  });
});

describe('tally', () => {
  it('counts every answer but detections', () => {
    expect(tally(['detections', 'error:bad_video', 'error:bad_video', 'dropped:overloaded'])).toEqual({
      'error:bad_video': 2,
      'dropped:overloaded': 1,
    });
  });
});
