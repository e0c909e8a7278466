import { describe, expect, it } from 'vitest';
import type { LatencySeries } from '../../../src/metrics/chart-data.ts';
import { latencySummary } from '../../../src/ui/latency-summary.ts';

const empty: LatencySeries = { frames: [], device: [], pings: [], gaps: [], codecsInterleaved: false, linesWithData: [] };

describe('latencySummary', () => {
  it('says when there is nothing yet', () => {
    expect(latencySummary(empty)).toBe('No latency measured yet.');
  });

  it('names the latest value of each line, skipping break rows', () => {
    const series: LatencySeries = {
      ...empty,
      frames: [
        { t: -3, fullJson: 80, fullMsgpack: null, server: 50, inference: 30, networkQueue: 30 },
        { t: -2, fullMsgpack: 42, fullJson: null, server: 31, inference: 20, networkQueue: 11 },
        { t: -1.5, fullJson: null, fullMsgpack: null, server: null, inference: null, networkQueue: null },
      ],
      pings: [{ t: -1, ping: 3.25 }],
    };
    const text = latencySummary(series);
    expect(text).toContain('Full · JSON 80.0 ms');
    expect(text).toContain('Full · MessagePack 42.0 ms');
    expect(text).toContain('Server 31.0 ms');
    expect(text).toContain('Ping RTT (same channel) 3.25 ms');
    expect(text).toContain('2 answered messages shown.');
    expect(text).not.toContain('right now');
  });

  it('says when answers have stopped', () => {
    const series: LatencySeries = {
      ...empty,
      frames: [{ t: -9, fullMsgpack: 40, fullJson: null }],
      gaps: [{ from: -9, to: 0, open: true }],
    };
    expect(latencySummary(series)).toContain('No answers are arriving right now.');
  });
});
