import { describe, expect, it } from 'vitest';
import { CELLS } from '../../../compare/cells.ts';
import { poolHalves } from '../../../compare/figures.ts';
import { engineTable, measureTable, type ServerResults } from '../../../compare/tables.ts';
import { ZERO_COUNTERS } from '../../../compare/triton-metrics.ts';
import { benchResult, measurement } from '../../support/measurements.ts';

/** 10 detected frames of `latencyMs` (server 2 ms less, inference 5 ms less) at `fps`, plus `refused` overloaded ones. */
function cell(latencyMs: number, fps: number, refused = 0) {
  const frames = [
    ...Array.from({ length: 10 }, (_, i) => measurement({ seq: i, latencyMs, serverMs: latencyMs - 2, inferenceMs: latencyMs - 5 })),
    ...Array.from({ length: refused }, (_, i) =>
      measurement({ seq: 10 + i, outcome: 'dropped', errorCode: 'overloaded', retryAfterMs: 10 }),
    ),
  ];
  return poolHalves([benchResult(frames, { wallMs: (10 * 1000) / fps })]);
}

const local: ServerResults = { name: 'local, batch 1', role: 'local', cells: { one: cell(15, 60), six: cell(50, 80, 4) } };
const remote: ServerResults = {
  name: 'Triton, batching off',
  role: 'remote',
  cells: { one: cell(20, 45), six: cell(70, 70) },
  engine: {
    one: { ...ZERO_COUNTERS, requests: 10, inferences: 10, executions: 10, requestUs: 100_000, queueUs: 10_000, computeUs: 80_000 },
    six: {
      ...ZERO_COUNTERS,
      requests: 10,
      failures: 1,
      inferences: 10,
      executions: 5,
      requestUs: 400_000,
      queueUs: 100_000,
      computeUs: 250_000,
    },
  },
};

describe('compare: the tables', () => {
  it('has a row per cell and server, cell by cell, with the pooled figures', () => {
    const lines = measureTable([local, remote], CELLS).split('\n');
    expect(lines).toHaveLength(2 + 4);
    expect(lines[2]).toBe('| local, batch 1 | 1 | 15.0 | 15.0 | 15.0 | 60.0 | 10 | 0 / 0 | 0 | none | 13.0 | 10.0 |');
    expect(lines[3]!.startsWith('| Triton, batching off | 1 | 20.0 |')).toBe(true);
    expect(lines[4]).toBe('| local, batch 1 | 6 | 50.0 | 50.0 | 50.0 | 80.0 | 14 | 4 / 0 | 4 | none | 48.0 | 45.0 |');
  });

  it("puts the engine's share beside the gateway's round trip, remote rows only", () => {
    const lines = engineTable([local, remote], CELLS).split('\n');
    expect(lines).toHaveLength(2 + 2);
    // Round trip 15 ms (inference mean), 10 ms of it in the engine: 5 ms of hop, 67%.
    expect(lines[2]).toBe('| Triton, batching off | 1 | 10 | 1.00 | 10.0 | 1.0 | 8.0 | 15.0 | 5.0 | 67% |');
    expect(lines[3]).toBe('| Triton, batching off | 6 | 10 (1 failed) | 2.00 | 40.0 | 10.0 | 25.0 | 65.0 | 25.0 | 62% |');
    expect(engineTable([local], CELLS)).toBe('');
  });
});
