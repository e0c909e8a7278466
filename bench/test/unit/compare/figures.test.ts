import { describe, expect, it } from 'vitest';
import { summarizeSamples } from '../../../client/report.ts';
import { otherNotDetected, overloaded, poolHalves } from '../../../compare/figures.ts';
import { benchResult, measurement } from '../../support/measurements.ts';

describe('compare: pooling halves', () => {
  it('takes percentiles over every frame of every half, and frames/s over their summed wall time', () => {
    // Latencies 1..50 in one half, 51..100 in the other: the pooled p50 is 50.5, which neither half has.
    const first = benchResult(
      Array.from({ length: 50 }, (_, i) => measurement({ seq: i, latencyMs: i + 1 })),
      { wallMs: 1000 },
    );
    const second = benchResult(
      Array.from({ length: 50 }, (_, i) => measurement({ seq: i, latencyMs: i + 51 })),
      { wallMs: 4000 },
    );
    const pooled = poolHalves([first, second]);
    expect(pooled.halves).toBe(2);
    expect(pooled.summary.latency.p50).toBe(50.5);
    expect(pooled.summary.counts).toMatchObject({ sent: 100, ok: 100 });
    expect(pooled.summary.throughputFps).toBe(20);
  });

  it('counts the refusals the client waited on (retryAfterMs), measured frames only', () => {
    const result = benchResult([
      measurement({ seq: 0 }),
      measurement({ seq: 1, outcome: 'dropped', errorCode: 'overloaded', retryAfterMs: 12 }),
      measurement({ seq: 2, outcome: 'error', errorCode: 'overloaded', retryAfterMs: 0 }),
      measurement({ seq: 3, outcome: 'dropped', errorCode: 'superseded' }),
      measurement({ seq: 4, outcome: 'held', latencyMs: Number.NaN }),
      measurement({ seq: 0, warmup: true, outcome: 'dropped', errorCode: 'overloaded', retryAfterMs: 5 }),
    ]);
    expect(poolHalves([result]).held).toBe(3);
  });

  it('refuses to pool nothing', () => {
    expect(() => poolHalves([])).toThrow(/no halves/);
  });
});

describe('compare: what was not detected', () => {
  const summary = summarizeSamples(
    [
      measurement({ seq: 0, outcome: 'dropped', errorCode: 'overloaded' }),
      measurement({ seq: 1, outcome: 'dropped', errorCode: 'overloaded' }),
      measurement({ seq: 2, outcome: 'error', errorCode: 'overloaded' }),
      measurement({ seq: 3, outcome: 'error', errorCode: 'unavailable' }),
      measurement({ seq: 4, outcome: 'dropped', errorCode: 'superseded' }),
      measurement({ seq: 5, outcome: 'dropped', errorCode: 'superseded' }),
      measurement({ seq: 6, outcome: 'timeout', latencyMs: Number.NaN }),
    ],
    [],
    1000,
    1,
    'all',
  );

  it('splits overload refusals by how they were answered', () => {
    expect(overloaded(summary)).toEqual({ dropped: 2, error: 1 });
  });

  it('lists the rest, most frequent first, then what went unanswered', () => {
    expect(otherNotDetected(summary)).toBe('dropped:superseded 2, error:unavailable 1, unanswered 1');
    expect(otherNotDetected(summarizeSamples([measurement({})], [], 1000, 1, 'all'))).toBe('none');
  });
});
