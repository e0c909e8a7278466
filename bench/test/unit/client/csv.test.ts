import { describe, expect, it } from 'vitest';
import { CSV_COLUMNS, csvCell, toCsv } from '../../../client/csv.ts';
import { benchResult, KNOWN_FRAMES, KNOWN_NET, measurement } from '../../support/measurements.ts';

describe('bench CSV', () => {
  it('has one row per frame, warm-up included, the label quoted', () => {
    const csv = toCsv(benchResult(KNOWN_FRAMES, { argv: ['--label', 'known, "data"'], net: KNOWN_NET, wallMs: 10_000 }))
      .trim()
      .split('\n');
    expect(csv[0]).toBe(CSV_COLUMNS.join(','));
    expect(csv).toHaveLength(1 + KNOWN_FRAMES.length);
    expect(csv[1]!.startsWith('"known, ""data""",0,0,0,1,')).toBe(true); // the warm-up frame starts first
  });

  it('leaves a missing number empty', () => {
    expect(csvCell(Number.NaN)).toBe('');
  });

  it('names the replica of each frame in the last column', () => {
    const csv = toCsv(benchResult([measurement({ instance: 'gw-a' })]))
      .trim()
      .split('\n');
    expect(CSV_COLUMNS.at(-1)).toBe('instance');
    expect(csv[1]!.endsWith(',gw-a')).toBe(true);
  });
});
