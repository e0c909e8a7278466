import { describe, expect, it } from 'vitest';
import type { CellContext, TransportRow } from '../../../links/cell.ts';
import { planCells } from '../../../links/plan.ts';
import { runCells, type RunSettings } from '../../../links/runner.ts';
import { link, measurement } from './support.ts';

/** A row that records the contexts it ran with and answers from `answer`. */
function recordingRow(
  id: string,
  calls: Array<{ id: string; context: CellContext }>,
  answer = () => Promise.resolve(measurement()),
): TransportRow {
  return {
    id,
    transport: id,
    codec: 'c',
    paths: ['proxy', 'packet'],
    run: (context) => {
      calls.push({ id, context });
      return answer();
    },
  };
}

const settings: RunSettings = {
  gatewayUrl: 'http://127.0.0.1:1',
  measure: (l) => (l.name === 'lte' ? { frames: 7 } : { seconds: 2 }),
  warmup: 1,
  timeoutMs: 1000,
  frames: { kind: 'clip', width: 64, height: 48, count: 5, bitrateKbps: 100, keyframeInterval: 5 },
  rounds: 2,
  baseSeed: 9,
};

describe('running cells', () => {
  it('runs the rows of a link in interleaved rounds, link by link, and pools each cell’s rounds', async () => {
    const calls: Array<{ id: string; context: CellContext }> = [];
    const rows = [recordingRow('a', calls), recordingRow('b', calls)];
    const plan = planCells([link('none'), link('lte'), link('lossy', 'lte,loss=1%')], rows, 'auto', 'no root');
    const outcomes = await runCells(plan, settings);
    expect(calls.map((c) => `${c.context.link.name}:${c.id}`)).toEqual([
      'none:a',
      'none:b',
      'none:b',
      'none:a',
      'lte:a',
      'lte:b',
      'lte:b',
      'lte:a',
    ]);
    expect(calls.map((c) => c.context.path)).toEqual(['loopback', 'loopback', 'loopback', 'loopback', 'proxy', 'proxy', 'proxy', 'proxy']);
    expect(calls[4]!.context.measure).toEqual({ frames: 7 });
    expect(calls[0]!.context.measure).toEqual({ seconds: 2 });
    // Every cell and round has its own seed.
    expect(new Set(calls.map((c) => c.context.seed)).size).toBe(calls.length);
    expect(outcomes).toHaveLength(6);
    expect(outcomes[0]).toMatchObject({ path: 'loopback', measurement: { ok: 6, wallMs: 2000 } });
    expect(outcomes[4]).toMatchObject({ skipped: 'loss needs the packet path: no root' });
    expect(outcomes[4]!.measurement).toBeUndefined();
  });

  it('reports a cell that fails with why, keeps what it measured, and runs the others', async () => {
    const calls: Array<{ id: string; context: CellContext }> = [];
    let n = 0;
    const flaky = recordingRow('flaky', calls, () =>
      ++n === 1 ? Promise.resolve(measurement()) : Promise.reject(new Error('the gateway went away')),
    );
    const broken = recordingRow('broken', calls, () => Promise.reject(new Error('no decoder')));
    const fine = recordingRow('fine', calls);
    const log: string[] = [];
    const outcomes = await runCells(planCells([link('lte')], [flaky, broken, fine], 'auto', undefined), {
      ...settings,
      log: (l) => log.push(l),
    });
    expect(outcomes.map((o) => [o.row.id, o.failed, o.measurement?.ok])).toEqual([
      ['flaky', 'the gateway went away', 3],
      ['broken', 'no decoder', undefined],
      ['fine', undefined, 6],
    ]);
    // Round 2 runs backwards and leaves out the cell that failed in round 1.
    expect(calls.map((c) => c.id)).toEqual(['flaky', 'broken', 'fine', 'fine', 'flaky']);
    expect(log.filter((l) => l.includes('FAILED'))).toHaveLength(2);
  });
});
