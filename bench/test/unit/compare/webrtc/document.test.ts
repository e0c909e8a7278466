import { describe, expect, it } from 'vitest';
import { cellTable, longRunTable, rowCommand, verdictLines, webrtcSection } from '../../../../compare/webrtc/document.ts';
import { CELL_ROWS, LONG_RUN_ROWS, rowName, type WebRtcRow } from '../../../../compare/webrtc/rows.ts';
import { chooseLinkPath, halfSeconds, linkPlans, sectionName, type LinkResults } from '../../../../compare/webrtc/run.ts';
import type { CompareOptions } from '../../../../compare/options.ts';
import { measuredPeriod, type FrameSample } from '../../../../webrtc/figures.ts';
import type { WebRtcCellResult } from '../../../../webrtc/run-cell.ts';
import { compareOptions } from '../../../support/compare-options.ts';
import { TEST_RUN_CONTEXT } from '../../../support/measurements.ts';

const options = (o: Partial<CompareOptions> = {}) => compareOptions({ preset: 'webrtc', ...o });

/** A run whose frames (one every 100 ms over `seconds`) are all detected with `latency(i)` ms, on the given link. */
function run(row: WebRtcRow, seconds: number, latency: (i: number) => number, windowS = 10, lostEvery = 0): WebRtcCellResult {
  const samples: FrameSample[] = Array.from({ length: seconds * 10 }, (_, i) =>
    lostEvery && i % lostEvery === 0
      ? { sentAt: i * 100, outcome: 'lost', bytes: 1000 }
      : { sentAt: i * 100, outcome: 'detected', latencyMs: latency(i), bytes: 1000 },
  );
  return {
    transport: row.transport,
    codec: row.transport === 'webrtc-dc' ? 'msgpack' : 'vp8',
    link: 'LTE · 40 ms RTT ±4, ↓29.5 ↑7.6 Mbit/s, emulated',
    linkPath: 'network',
    ...measuredPeriod(samples, { originMs: 0, endMs: seconds * 1000, windowS }),
    late: 0,
    unmatched: 0,
    duplicates: 0,
    senderStats: {},
    durationS: seconds,
    warmupS: 3,
    fps: 10,
  };
}

const latencyOf: Record<string, (i: number) => number> = {
  gateway: () => 50,
  'peer-latest': () => 80,
  'peer-queue': (i) => 100 + 10 * i,
};

function lte(rows: readonly WebRtcRow[], seconds: number, windowS = 10): LinkResults {
  return {
    link: { spec: 'lte', profile: undefined },
    path: 'packet',
    rows: rows.map((row) => ({ row, halves: [run(row, seconds, latencyOf[row.server]!, windowS)], failures: [] })),
    notMeasured: [],
  };
}

describe('bench:compare --preset webrtc: its document', () => {
  it('tables every row of a link, the track rows first, with the p95 of each window of each half', () => {
    const table = cellTable(lte(CELL_ROWS, 20));
    const lines = table.split('\n');
    expect(lines[2]).toMatch(/^\| \*\*video track/);
    expect(lines[3]).toMatch(/^\| Sightline \| 10\.0 \| 50\.0 \| 50\.0 \|/);
    // The queueing peer's delay grows window by window.
    expect(lines[5]).toMatch(/aiortc peer \(every frame, queued\).*\| 1[0-9]{3} · 2[0-9]{3} \|$/);
    expect(lines[6]).toMatch(/^\| \*\*data channel/);
    expect(lines).toHaveLength(9);
  });

  it("answers the issue's question per link: Sightline's track p95 against each peer's, and the data channel against the track", () => {
    const lines = verdictLines(lte(CELL_ROWS, 20));
    expect(lines[0]).toMatch(/Sightline against aiortc peer \(newest frame\): p95 50\.0 vs 80\.0 ms \(0\.63x\): at or below/);
    expect(lines[1]).toMatch(/every frame, queued.*at or below/);
    expect(lines[2]).toMatch(/data channel against video track: p95 50\.0 vs 50\.0 ms/);
    const nothing = lte(CELL_ROWS, 20);
    const queued = nothing.rows.find((r) => r.row.server === 'peer-queue')!;
    queued.halves = [run(queued.row, 20, () => 1, 10, 1)];
    expect(verdictLines(nothing)[1]).toMatch(/returned no result within the timeout \(200 of 200 frames undetected\)/);
  });

  it('tables a long run minute by minute, with the growth of p95 from the first minute to the last', () => {
    const table = longRunTable(lte(LONG_RUN_ROWS, 180, 60));
    const [header, , ours, , queued] = table.split('\n');
    expect(header).toContain('| min 1: p50 / p95 | min 2: p50 / p95 | min 3: p50 / p95 | p95 growth (last - first) |');
    expect(ours).toMatch(/\| 50 \/ 50 \| 50 \/ 50 \| 50 \/ 50 \| 0 ms \|$/);
    expect(queued).toMatch(/\| 3095 \/ 5791 \| 9095 \/ 11791 \| 15095 \/ 17791 \| \+12000 ms \|$/);
  });

  it('prints the command of each row, with the link and, on the packet path, the address the sender binds', () => {
    const link = lte(CELL_ROWS, 20);
    const report = { halfS: 20, warmupS: 3, windowS: 10, options: options() };
    expect(rowCommand(CELL_ROWS[0]!, link, report)).toBe(
      'pnpm bench:webrtc --url "$GATEWAY" --transport webrtc-track --duration 20 --warmup 3 --fps 30 --every 10 --link lte --link-path network --bind "$HOST_END"',
    );
    // A long run's track rows count every result that comes while it lasts.
    expect(rowCommand(CELL_ROWS[0]!, link, { ...report, options: options({ durationS: 300 }) })).toMatch(
      /--every 10 --timeout 300000 --link lte /,
    );
    const lossy = { ...link, link: { spec: 'lte,loss=2%', profile: undefined }, path: 'relay' as const };
    expect(rowCommand(CELL_ROWS[3]!, lossy, report)).toBe(
      `pnpm bench:webrtc --url "$GATEWAY" --transport webrtc-dc --duration 20 --warmup 3 --fps 30 --every 10 --link 'lte,loss=2%'`,
    );
  });

  it('writes the whole section: what ran, the context, each link with what its path emulates, and the failures', () => {
    const link = lte(CELL_ROWS, 20);
    link.rows[1]!.failures.push('the peer connection turned failed');
    const section = webrtcSection({
      options: options(),
      context: { ...TEST_RUN_CONTEXT, loadBefore: 9, loadAfter: 9 },
      links: [link],
      linkPath: 'packet',
      linkPathWhy: 'running as root',
      halfS: 20,
      warmupS: 3,
      windowS: 10,
      threads: 2,
      workers: 2,
    });
    expect(section).toMatch(/^## WebRTC: Sightline's two paths/);
    expect(section).toContain('### `lte` (LTE · 40 ms RTT');
    expect(section).toContain('packet path (bench/link/packet, root)');
    expect(section).toContain('**Warning: the machine was busy');
    expect(section).toContain('aiortc peer (newest frame) (1 half failed)');
    expect(section).toContain(
      `**Warning: halves failed during this run:** ${rowName(CELL_ROWS[1]!)} on lte: the peer connection turned failed`,
    );
    expect(section).toContain('PEER_QUEUE=http://127.0.0.1:8093');
  });

  it('names the sections apart, scales the halves, reads the links, and takes the relay when asked', () => {
    expect(sectionName({ durationS: undefined })).toBe('webrtc');
    expect(sectionName({ durationS: 300 })).toBe('webrtc-long');
    expect([halfSeconds(1), halfSeconds(0.2), halfSeconds(0.01)]).toEqual([20, 4, 2]);
    expect(linkPlans(['none', 'lte,loss=2%']).map((l) => [l.spec, l.profile?.up.loss])).toEqual([
      ['none', undefined],
      ['lte,loss=2%', { kind: 'random', rate: 0.02 }],
    ]);
    expect(chooseLinkPath('relay')).toEqual({ path: 'relay', why: 'asked for' });
  });
});
