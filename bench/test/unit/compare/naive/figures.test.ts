import { describe, expect, it } from 'vitest';
import type { NaiveClientReport, NaiveClientResult } from '../../../../baselines/naive-client.ts';
import { benchFigures, otherText, pythonFigures, refusedShare } from '../../../../compare/naive/figures.ts';
import { benchResult, measurement } from '../../../support/measurements.ts';

function pythonClient(partial: Partial<NaiveClientResult>): NaiveClientResult {
  const none = { count: 0, p50: null, p95: null, p99: null, max: null };
  return {
    client: 0,
    hello: true,
    closed: null,
    warmupUnanswered: 0,
    sent: 0,
    detections: 0,
    dropped: {},
    errors: {},
    other: 0,
    otherKinds: {},
    unanswered: 0,
    latencyMs: none,
    serverMs: none,
    samples: { latencyMs: [], serverMs: [] },
    ...partial,
  };
}

function report(wallS: number, perClient: NaiveClientResult[]): NaiveClientReport {
  return {
    client: 'naive_client.py',
    url: 'ws://x/ws',
    clients: perClient.length,
    durationS: wallS,
    warmup: 3,
    wallS,
    total: { sent: 0, detections: 0, dropped: {}, errors: {}, other: 0, otherKinds: {}, unanswered: 0, detectionsPerS: null },
    perClient,
  };
}

describe('naive-client figures', () => {
  it('pools the benchmark client: overload refusals apart from the rest, detections/s over the wall time', () => {
    const frames = [
      ...Array.from({ length: 8 }, (_, i) => measurement({ seq: i, latencyMs: i + 1, serverMs: 1 })),
      measurement({ outcome: 'dropped', errorCode: 'overloaded' }),
      measurement({ outcome: 'error', errorCode: 'overloaded' }),
      measurement({ outcome: 'dropped', errorCode: 'superseded' }),
      measurement({ outcome: 'timeout', latencyMs: Number.NaN, warmup: true }),
    ];
    const f = benchFigures([benchResult(frames, { wallMs: 2000 })]);
    expect(f).toMatchObject({
      halves: 1,
      sent: 11,
      detections: 8,
      refused: { dropped: 1, error: 1 },
      unanswered: 1,
      wallS: 2,
      detectionsPerS: 4,
    });
    expect(f.other).toEqual({ 'dropped:superseded': 1 });
    expect(f.latency.p50).toBe(4.5);
    expect(refusedShare(f)).toBeCloseTo(2 / 11);
  });

  it("pools the Python client's halves and clients: samples, counts, failures", () => {
    const a = report(2, [
      pythonClient({ sent: 5, detections: 4, dropped: { overloaded: 1 }, samples: { latencyMs: [1, 2, 3, 4], serverMs: [1, 1, 1, 1] } }),
      pythonClient({ client: 1, sent: 0, closed: 'could not connect: refused' }),
    ]);
    const b = report(3, [
      pythonClient({
        sent: 8,
        detections: 4,
        errors: { overloaded: 1, bad_message: 1 },
        other: 2,
        otherKinds: { binary: 2 },
        samples: { latencyMs: [5, 6, 7, 8], serverMs: [2, 2, 2, 2] },
      }),
    ]);
    const f = pythonFigures([a, b]);
    expect(f).toMatchObject({ halves: 2, sent: 13, detections: 8, refused: { dropped: 1, error: 1 }, unanswered: 0, wallS: 5 });
    expect(f.detectionsPerS).toBeCloseTo(8 / 5);
    expect(f.latency.p50).toBe(4.5);
    expect(f.serverMs.p50).toBe(1.5);
    expect(f.other).toEqual({ 'error:bad_message': 1, 'other:binary': 2 });
    expect(f.failures).toEqual(['client 1: could not connect: refused']);
    expect(otherText(f)).toBe('other:binary 2, error:bad_message 1');
    expect(otherText({ other: {} })).toBe('none');
    expect(refusedShare({ sent: 0, refused: { dropped: 0, error: 0 } })).toBeNaN();
  });
});
