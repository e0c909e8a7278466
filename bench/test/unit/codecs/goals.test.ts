import { describe, expect, it } from 'vitest';
import type { Agreement } from '../../../codecs/agreement.ts';
import type { EncodingCodec } from '../../../codecs/encodings.ts';
import { cheapestAgreeing, judgeGoals, LINKS, linkChoices, LOOPBACK_IN_TURNS } from '../../../codecs/goals.ts';
import type { LinkRow, QualityRow } from '../../../codecs/results.ts';
import type { DecoderUsage } from '../../../codecs/wire-run.ts';

const UPLINK = LINKS.find((l) => l.key === 'uplink-2mbit')!;

function quality(codec: EncodingCodec, level: number, bytesMean: number, map: number, decoder?: Partial<DecoderUsage>): QualityRow {
  return {
    clip: 'slideshow',
    codec,
    setting: codec === 'jpeg' ? `q${level}` : `${level} kbit/s`,
    level,
    frames: 10,
    bytesMean,
    bytesP95: bytesMean,
    encodeCpuMsPerFrame: 1,
    decodeMsP50: 2,
    decodeMsP95: 3,
    decoder: decoder ? { cpuMsPerFrame: 1, rssMB: 15, peakRssMB: 16, privateMB: 4, ...decoder } : undefined,
    agreement: { map, labelMatch: 1, perClass: {}, frames: 10, truthBoxes: 20 } satisfies Agreement,
    failures: {},
  };
}

function link(name: string, codec: EncodingCodec, setting: string, detectionsPerSecond: number, latencyP50 = 30, inFlight = 1): LinkRow {
  return {
    link: name,
    spec: undefined,
    codec,
    setting,
    inFlight,
    frames: 10,
    wireBytesMean: 1000,
    detectionsPerSecond,
    latencyP50,
    latencyP95: latencyP50 * 2,
    failures: {},
  };
}

const ROWS = [
  quality('jpeg', 50, 30_000, 0.93),
  quality('jpeg', 80, 50_000, 0.97),
  quality('vp8', 250, 1_500, 0.7, { cpuMsPerFrame: 1.2 }),
  quality('vp8', 500, 3_000, 0.91, { cpuMsPerFrame: 1.5, peakRssMB: 17 }),
  quality('vp8', 1000, 6_000, 0.95, { cpuMsPerFrame: 1.9 }),
  quality('h264', 500, 3_000, 0.85, { cpuMsPerFrame: 2.4, peakRssMB: 31 }),
];

describe('cheapestAgreeing', () => {
  it("picks a codec's fewest bytes per frame at mAP >= 0.9", () => {
    expect(cheapestAgreeing(ROWS, 'vp8')).toMatchObject({ agrees: true, row: { level: 500 } });
    expect(cheapestAgreeing(ROWS, 'jpeg')).toMatchObject({ agrees: true, row: { level: 50 } });
  });

  it('falls back to the best agreement when no setting agrees, and says so', () => {
    expect(cheapestAgreeing(ROWS, 'h264')).toMatchObject({ agrees: false, row: { level: 500 } });
    expect(cheapestAgreeing(ROWS, 'vp9')).toBeUndefined();
  });
});

describe('linkChoices', () => {
  it("runs JPEG at the dashboard's q80 and every codec at its cheapest agreeing setting, each once", () => {
    expect(linkChoices(ROWS).map((c) => `${c.codec} ${c.setting}`)).toEqual(['jpeg q80', 'jpeg q50', 'vp8 500 kbit/s', 'h264 500 kbit/s']);
  });

  it('leaves the truth out and does not repeat q80 when it is also the cheapest agreeing JPEG', () => {
    const rows = [quality('png', 0, 700_000, 1), quality('jpeg', 80, 50_000, 0.95), quality('jpeg', 90, 70_000, 0.99)];
    expect(linkChoices(rows).map((c) => c.setting)).toEqual(['q80']);
  });
});

describe('judgeGoals', () => {
  const links = [
    link('loopback', 'jpeg', 'q80', 30, 30),
    link('loopback', 'vp8', '500 kbit/s', 31, 32),
    link('loopback', 'h264', '500 kbit/s', 25, 40),
    link(UPLINK.name, 'jpeg', 'q80', 4),
    link(UPLINK.name, 'jpeg', 'q50', 6),
    link(UPLINK.name, 'vp8', '500 kbit/s', 14),
    link(UPLINK.name, 'vp8', '250 kbit/s', 20),
  ];
  const goals = judgeGoals(ROWS, links);
  const verdict = (start: string) => goals.find((g) => g.goal.startsWith(start));

  it('judges the uplink goal on VP8 settings that agree at 0.9 only, against JPEG q80, and shows the cheaper JPEG too', () => {
    const uplink = verdict('on a 2 Mbit/s uplink')!;
    // 250 kbit/s is faster (20/s) but agrees at 0.7 only: 500 kbit/s counts, 14 / 4 = 3.5x.
    expect(uplink.verdict).toBe('pass');
    expect(uplink.detail).toContain('VP8 500 kbit/s');
    expect(uplink.detail).toContain('3.50x');
    expect(uplink.detail).toContain('q50: 2.33x');
  });

  it('compares each side at its best frames in flight, and prints the stop-and-wait ratio beside it', () => {
    const goals = judgeGoals(ROWS, [
      link(UPLINK.name, 'jpeg', 'q80', 4),
      link(UPLINK.name, 'jpeg', 'q80', 4.5, 600, 3),
      link(UPLINK.name, 'vp8', '500 kbit/s', 10),
      link(UPLINK.name, 'vp8', '500 kbit/s', 18, 120, 3),
    ]);
    const uplink = goals.find((g) => g.goal.startsWith('on a 2 Mbit/s'))!;
    // 18 / 4.5 = 4x; stop-and-wait alone 10 / 4 = 2.5x.
    expect(uplink.verdict).toBe('pass');
    expect(uplink.detail).toContain('3 in flight: 18.0/s');
    expect(uplink.detail).toContain('4.00x');
    expect(uplink.detail).toContain('both stop-and-wait: 10.0 against 4.0/s, 2.50x');
  });

  it('judges loopback latency on stop-and-wait runs only', () => {
    const goals = judgeGoals(ROWS, [
      link('loopback', 'jpeg', 'q80', 30, 30),
      link('loopback', 'jpeg', 'q80', 40, 50, 3),
      link('loopback', 'vp8', '500 kbit/s', 40, 45, 3),
      link('loopback', 'vp8', '500 kbit/s', 31, 32),
    ]);
    expect(goals.find((g) => g.goal.startsWith("on loopback, VP8's"))).toMatchObject({ verdict: 'pass' });
  });

  it('fails the uplink goal under 3x, and calls it not measured when a side was not run', () => {
    const slow = judgeGoals(ROWS, [link(UPLINK.name, 'jpeg', 'q80', 5), link(UPLINK.name, 'vp8', '500 kbit/s', 14)]);
    expect(slow.find((g) => g.goal.startsWith('on a 2 Mbit/s'))!.verdict).toBe('fail');
    const missing = judgeGoals(ROWS, [link(UPLINK.name, 'vp8', '500 kbit/s', 14)]);
    expect(missing.find((g) => g.goal.startsWith('on a 2 Mbit/s'))!.verdict).toBe('not measured');
  });

  it('judges decoder CPU and memory per codec on its worst bitrate', () => {
    expect(verdict('VP8: decoding')).toMatchObject({ verdict: 'pass' });
    expect(verdict('VP8: decoding')!.detail).toContain('1.90 ms/frame (1000 kbit/s)');
    expect(verdict('VP8: a stream')).toMatchObject({ verdict: 'pass' });
    expect(verdict('VP8: a stream')!.detail).toContain('17.0 MB (500 kbit/s');
    expect(verdict('H.264: decoding')).toMatchObject({ verdict: 'fail' });
    expect(verdict('H.264: a stream')).toMatchObject({ verdict: 'fail' });
  });

  it('compares each video codec with JPEG q80 on loopback at p50, within 10%', () => {
    expect(verdict("on loopback, VP8's")).toMatchObject({ verdict: 'pass' });
    expect(verdict("on loopback, H.264's")).toMatchObject({ verdict: 'fail' });
  });

  it('judges loopback latency on the run in turns when there is one, whatever the runs one after another say', () => {
    // One after another, VP8 looked 1.20x slower (the machine drifted between them); in turns it is 1.03x.
    const drifted = [link('loopback', 'jpeg', 'q80', 25, 20), link('loopback', 'vp8', '500 kbit/s', 25, 24)];
    const turns = [link(LOOPBACK_IN_TURNS.name, 'jpeg', 'q80', 6, 30), link(LOOPBACK_IN_TURNS.name, 'vp8', '500 kbit/s', 6, 31)];
    expect(judgeGoals(ROWS, drifted).find((g) => g.goal.startsWith("on loopback, VP8's"))).toMatchObject({ verdict: 'fail' });
    const judged = judgeGoals(ROWS, drifted, turns).find((g) => g.goal.startsWith("on loopback, VP8's"))!;
    expect(judged).toMatchObject({ verdict: 'pass' });
    expect(judged.goal).toContain('in turns');
    expect(judged.detail).toContain('1.03x');
    // And the other way round: a video codec slower in turns fails, however the runs one after another went.
    const slowTurns = [link(LOOPBACK_IN_TURNS.name, 'jpeg', 'q80', 6, 30), link(LOOPBACK_IN_TURNS.name, 'vp8', '500 kbit/s', 6, 34)];
    expect(judgeGoals(ROWS, links, slowTurns).find((g) => g.goal.startsWith("on loopback, VP8's"))).toMatchObject({ verdict: 'fail' });
  });

  it('never passes a goal whose figures are missing', () => {
    const bare = judgeGoals([quality('vp8', 500, 3000, 0.95)], []);
    expect(bare.map((g) => g.verdict)).toEqual(['not measured', 'not measured', 'not measured', 'not measured']);
  });
});
