import { describe, expect, it } from 'vitest';
import type { FrameMeasurement } from '../../../client/types.ts';
import { figuresOf, measurementOf, pool } from '../../../links/measurement.ts';
import { measurement } from './support.ts';

function sample(partial: Partial<FrameMeasurement>): FrameMeasurement {
  return {
    outcome: 'ok',
    latencyMs: 100,
    bytesUp: 1000,
    bytesDown: 100,
    repeat: 0,
    client: 0,
    seq: 0,
    warmup: false,
    input: 'x',
    startMs: 0,
    ...partial,
  };
}

describe('a cell measurement', () => {
  it('counts the measured frames by outcome: detected, refused (dropped, error), lost (timeout, broken connection)', () => {
    const m = measurementOf(
      [
        sample({ warmup: true, latencyMs: 999 }),
        sample({ latencyMs: 50, serverMs: 10 }),
        sample({ latencyMs: 70, serverMs: 12 }),
        sample({ outcome: 'dropped', errorCode: 'superseded', bytesDown: 50 }),
        sample({ outcome: 'error', errorCode: 'overloaded', bytesDown: 60 }),
        sample({ outcome: 'timeout', latencyMs: Number.NaN, bytesUp: 1000, bytesDown: 0 }),
        sample({ outcome: 'failed', latencyMs: Number.NaN, bytesUp: 400, bytesDown: 0 }),
        sample({ outcome: 'held', bytesUp: 0, bytesDown: 0 }),
      ],
      2000,
      ['cmd'],
    );
    expect(m).toMatchObject({ sent: 6, ok: 2, refused: 2, lost: 2, answered: 4, wallMs: 2000, commands: ['cmd'] });
    expect(m.latenciesMs).toEqual([50, 70]);
    expect(m.serverMs).toEqual([10, 12]);
    expect(m.reasons).toEqual({ 'dropped:superseded': 1, 'error:overloaded': 1, timeout: 1, failed: 1 });
    expect(m.answeredBytesUp).toBe(4000);
    expect(m.answeredBytesDown).toBe(100 + 100 + 50 + 60);
    expect(m.sentBytesUp).toBe(5400);
  });

  it('pools rounds by adding them up, and derives the table’s figures from the pool', () => {
    const a = measurement({
      latenciesMs: [10, 20],
      wallMs: 1000,
      reasons: { timeout: 1 },
      lost: 1,
      sent: 3,
      sentBytesUp: 3000,
      commands: ['a'],
    });
    const b = measurement({
      latenciesMs: [30, 40],
      wallMs: 3000,
      reasons: { timeout: 2 },
      lost: 2,
      sent: 4,
      sentBytesUp: 4000,
      commands: ['b'],
    });
    const pooled = pool([a, b]);
    expect(pooled).toMatchObject({ ok: 4, lost: 3, sent: 7, wallMs: 4000, reasons: { timeout: 3 }, commands: ['a', 'b'] });
    const f = figuresOf(pooled);
    expect(f.detectionsPerS).toBe(1);
    expect(f.p50).toBe(25);
    expect(f.mean).toBe(25);
    expect(f.bytesUpPerFrame).toBe(1000);
    expect(f.bytesDownPerFrame).toBe(100);
    expect(f.bytesUpPerS).toBe(7000 / 4);
    expect(f.serverP50).toBe(10);
  });

  it('has no figure where nothing was answered', () => {
    const f = figuresOf(measurement({ latenciesMs: [], ok: 0, answered: 0, sent: 2, lost: 2, wallMs: 0 }));
    expect(f.p50).toBeNaN();
    expect(f.detectionsPerS).toBeNaN();
    expect(f.bytesUpPerFrame).toBeNaN();
    expect(f.lost).toBe(2);
  });
});
