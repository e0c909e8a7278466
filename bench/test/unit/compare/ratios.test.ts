import { describe, expect, it } from 'vitest';
import { poolHalves } from '../../../compare/figures.ts';
import type { Role } from '../../../compare/plans.ts';
import { abLines, engineLines } from '../../../compare/ratios.ts';
import type { ServerResults } from '../../../compare/tables.ts';
import { benchResult, measurement } from '../../support/measurements.ts';

/** 10 frames of `latencyMs` at `fps`. */
function cell(latencyMs: number, fps: number) {
  return poolHalves([
    benchResult(
      Array.from({ length: 10 }, (_, i) => measurement({ seq: i, latencyMs })),
      { wallMs: (10 * 1000) / fps },
    ),
  ]);
}

function server(name: string, role: Role, p50One: number, fpsSix: number, p95Six = 60): ServerResults {
  return { name, role, cells: { one: cell(p50One, 50), six: cell(p95Six, fpsSix) } };
}

describe('compare: the A/B ratios', () => {
  it('puts after over before: 1-client p50, 6-client frames/s and p95', () => {
    const lines = abLines([server('before', 'before', 20, 80, 100), server('after', 'after', 15, 100, 90)]);
    expect(lines).toEqual([
      '- 1 client, p50: after 15.0 ms / before 20.0 ms = **0.75x** (below 1: the change made it faster)',
      '- 6 clients, detected frames/s: after 100.0 / before 80.0 = **1.25x** (above 1: the change detects more)',
      '- 6 clients, p95: after 90.0 ms / before 100.0 ms = **0.90x** (below 1: the change made the tail shorter)',
    ]);
  });

  it('says nothing without both sides', () => {
    expect(abLines([server('after', 'after', 15, 100)])).toEqual([]);
  });
});

describe("compare: issue 21's ratios", () => {
  const rows = [
    server('local, batch 1', 'local', 15, 80),
    server('local, batch 4', 'local', 16, 110),
    server('Triton, batch 8', 'remote', 19, 90),
    server('Triton, batching off', 'remote', 21.5, 85),
    server('FastAPI + OpenCV', 'peer', 20, 80),
  ];

  it('measures the best Sightline configuration on each target against the peer', () => {
    const [fps, p50] = engineLines(rows);
    expect(fps).toContain('best Sightline configuration (local, batch 4) 110.0 / FastAPI + OpenCV 80.0 = **1.38x**');
    expect(fps).toContain('target at least 1.25x: **met**');
    expect(fps).toContain('Each: local, batch 1 1.00x; local, batch 4 1.38x; Triton, batch 8 1.13x; Triton, batching off 1.06x.');
    expect(p50).toContain('best Sightline configuration (local, batch 1) 15.0 ms / FastAPI + OpenCV 20.0 ms = **0.75x**');
    expect(p50).toContain('target at most 0.85x: **met**');
  });

  it('says when a target is not met', () => {
    const slow = [server('local, batch 1', 'local', 19, 90), server('FastAPI + OpenCV', 'peer', 20, 80)];
    const [fps, p50] = engineLines(slow);
    expect(fps).toContain('**1.13x**, target at least 1.25x: **not met**');
    expect(p50).toContain('**0.95x**, target at most 0.85x: **not met**');
  });

  it('prices the remote hop at 1 client against the first local row', () => {
    expect(engineLines(rows).at(-1)).toBe(
      '- The remote hop at 1 client (remote p50 minus local, batch 1 p50 15.0 ms): Triton, batch 8 +4.0 ms; Triton, batching off +6.5 ms.',
    );
  });

  it('leaves out the peer ratios when the peer was not measured', () => {
    const lines = engineLines(rows.filter((r) => r.role !== 'peer'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('The remote hop');
  });
});
