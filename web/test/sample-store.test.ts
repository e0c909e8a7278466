import { describe, expect, it } from 'vitest';
import type { Codec } from '@sightline/shared/protocol';
import type { Sample } from '../src/metrics/sample.ts';
import { sampleFromOutcome } from '../src/metrics/sample.ts';
import { SampleStore } from '../src/metrics/sample-store.ts';
import { latencySeries } from '../src/metrics/chart-data.ts';
import type { FrameOutcomeKind } from '../src/transport/frame-sender.ts';

let nextId = 1;
function sample(codec: Codec, answeredPerf: number, fullMs: number, outcome: FrameOutcomeKind = 'ok', extra: Partial<Sample> = {}): Sample {
  const ok = outcome === 'ok';
  return {
    id: nextId++,
    codec,
    model: 'm',
    sentAt: 1_700_000_000_000 + answeredPerf - fullMs,
    sentPerf: answeredPerf - fullMs,
    answeredPerf,
    fullMs,
    serverMs: ok ? fullMs / 2 : null,
    inferenceMs: ok ? fullMs / 4 : null,
    networkQueueMs: ok ? fullMs / 2 : null,
    bytesUp: codec === 'json' ? 400 : 300,
    bytesDown: ok ? 100 : 30,
    outcome,
    detections: ok ? 2 : 0,
    reason: null,
    skippedBefore: 0,
    ...extra,
  };
}

describe('SampleStore', () => {
  it('computes stats per codec from its own samples only', () => {
    const store = new SampleStore();
    let t = 0;
    for (let i = 1; i <= 10; i++) store.add(sample('json', (t += 100), i * 10));
    for (let i = 1; i <= 4; i++) store.add(sample('msgpack', (t += 50), 5));
    const stats = store.statsByCodec(1000);
    expect(stats.json.count).toBe(10);
    expect(stats.json.full.p50).toBe(55);
    expect(stats.json.full.mean).toBe(55);
    expect(stats.json.full.p99).toBeCloseTo(99.1, 6);
    expect(stats.json.bytesUpMean).toBe(400);
    expect(stats.msgpack.count).toBe(4);
    expect(stats.msgpack.full.stddev).toBe(0);
    expect(stats.msgpack.bytesUpMean).toBe(300);
    expect(stats.msgpack.bytesDownMean).toBe(100);
  });

  it('windows the stats to the last N samples of each codec', () => {
    const store = new SampleStore();
    let t = 0;
    for (let i = 0; i < 50; i++) store.add(sample('json', (t += 10), 1000));
    for (let i = 0; i < 20; i++) store.add(sample('json', (t += 10), 10));
    const stats = store.statsFor('json', 20);
    expect(stats.count).toBe(20);
    expect(stats.full.max).toBe(10);
    expect(store.recent(5)).toHaveLength(5);
    expect(store.recent(5).at(-1)?.fullMs).toBe(10);
  });

  it('counts dropped, errors and lost without putting them in the latency stats', () => {
    const store = new SampleStore();
    store.add(sample('msgpack', 10, 20));
    store.add(sample('msgpack', 20, 3, 'dropped'));
    store.add(sample('msgpack', 30, 4, 'error'));
    store.add(sample('msgpack', 40, 5, 'lost'));
    const stats = store.statsFor('msgpack', 100);
    expect(stats).toMatchObject({ count: 1, dropped: 1, errors: 1, lost: 1 });
    expect(stats.full.p50).toBe(20);
  });

  it('sums the client-side skipped source frames per codec, within the window', () => {
    const store = new SampleStore();
    store.add(sample('msgpack', 10, 20, 'ok', { skippedBefore: 9 }));
    store.add(sample('msgpack', 20, 20, 'ok', { skippedBefore: 2 }));
    store.add(sample('json', 30, 20, 'ok', { skippedBefore: 4 }));
    store.add(sample('msgpack', 40, 5, 'lost', { skippedBefore: 1 }));
    expect(store.statsFor('msgpack', 100).skipped).toBe(12);
    expect(store.statsFor('msgpack', 2).skipped).toBe(3);
    expect(store.statsFor('json', 100).skipped).toBe(4);
  });

  it('measures FPS as completed frames over the time each codec was streaming', () => {
    const store = new SampleStore();
    // A/B: 10 json answers 50 ms apart, then 10 msgpack answers 25 ms apart.
    let t = 1000;
    for (let i = 0; i < 10; i++) store.add(sample('json', (t += 50), 40));
    for (let i = 0; i < 10; i++) store.add(sample('msgpack', (t += 25), 20));
    const stats = store.statsByCodec(100);
    // The first json answer has no predecessor: 9 timed answers over 450 ms = 20 fps (not 10 / 450 ms = 22.2).
    expect(stats.json.fps).toBeCloseTo(20, 9);
    // The first msgpack answer's 25 ms since the last json answer is msgpack streaming time.
    expect(stats.msgpack.fps).toBeCloseTo(40, 9);
  });

  it('gives exactly 10 fps for 11 frames 100 ms apart', () => {
    const store = new SampleStore();
    for (let i = 0; i <= 10; i++) store.add(sample('msgpack', 5000 + i * 100, 30));
    const stats = store.statsFor('msgpack', 100);
    expect(stats.count).toBe(11);
    expect(stats.fps).toBe(10);
  });

  it('has no FPS before a second answer, and counts dropped answers as time but not frames', () => {
    const store = new SampleStore();
    store.add(sample('json', 100, 10));
    expect(Number.isNaN(store.statsFor('json', 100).fps)).toBe(true);
    store.add(sample('json', 200, 10, 'dropped'));
    store.add(sample('json', 300, 10));
    // 1 completed frame over the 200 ms since the first answer.
    expect(store.statsFor('json', 100).fps).toBe(5);
  });

  it('restarts the count after a lost frame', () => {
    const store = new SampleStore();
    store.add(sample('json', 100, 10));
    store.add(sample('json', 200, 10));
    store.add(sample('json', 5000, 10, 'lost'));
    store.add(sample('json', 9000, 10));
    store.add(sample('json', 9100, 10));
    expect(store.statsFor('json', 100).fps).toBe(10);
  });

  it('does not count a pause as streaming time', () => {
    const store = new SampleStore();
    store.add(sample('json', 100, 10));
    store.add(sample('json', 200, 10));
    store.markBreak();
    store.add(sample('json', 60_000, 10));
    store.add(sample('json', 60_100, 10));
    // Two runs of two answers 100 ms apart: 2 timed answers over 200 ms.
    expect(store.statsFor('json', 100).fps).toBe(10);
  });

  it('caps the samples kept for export, oldest first out', () => {
    const store = new SampleStore({ maxSamples: 100 });
    for (let i = 0; i < 250; i++) store.add(sample('json', i, 1, 'ok', { id: i }));
    const all = store.all();
    expect(all).toHaveLength(100);
    expect(all[0]?.id).toBe(150);
    expect(store.discarded).toBe(150);
    store.clear();
    expect(store.all()).toHaveLength(0);
    expect(store.statsFor('json', 10).count).toBe(0);
    expect(Number.isNaN(store.statsFor('json', 10).full.p50)).toBe(true);
  });
});

describe('sampleFromOutcome', () => {
  it('derives full, server and network+queue times from a detections answer', () => {
    const s = sampleFromOutcome(
      {
        frame: { id: 7, codec: 'json', sentAt: 1000, bytesUp: 1234, encodeMs: 0.5, model: undefined, threshold: 0.5, skippedBefore: 3 },
        kind: 'ok',
        answeredAt: 1042.5,
        bytesDown: 321,
        answer: {
          type: 'detections',
          id: 7,
          ts: 1000,
          model: 'ssd',
          width: 320,
          height: 240,
          detections: [{ label: 'dog', classId: 18, score: 0.9, box: [1, 2, 3, 4] }],
          timings: { queueMs: 1, decodeMs: 2, preprocessMs: 3, inferenceMs: 20, postprocessMs: 1, serverMs: 30 },
        },
      },
      1_700_000_000_000,
    );
    expect(s).toMatchObject({
      id: 7,
      codec: 'json',
      model: 'ssd',
      sentAt: 1_700_000_001_000,
      fullMs: 42.5,
      serverMs: 30,
      inferenceMs: 20,
      networkQueueMs: 12.5,
      bytesUp: 1234,
      bytesDown: 321,
      outcome: 'ok',
      detections: 1,
      skippedBefore: 3,
    });
  });
});

describe('latencySeries', () => {
  it('puts each codec on its own full-latency series and skips unanswered frames', () => {
    const { frames } = latencySeries([sample('json', 1000, 40), sample('msgpack', 2000, 30), sample('msgpack', 2500, 30, 'dropped')], [], 3000);
    expect(frames).toEqual([
      { t: -2, fullJson: 40, fullMsgpack: null, server: 20, inference: 10, networkQueue: 20 },
      { t: -1, fullJson: null, fullMsgpack: 30, server: 15, inference: 7.5, networkQueue: 15 },
    ]);
  });

  it('keeps pings apart, from the first charted frame on', () => {
    const { pings } = latencySeries([sample('json', 1000, 40)], [{ at: 200, rttMs: 9 }, { at: 1100, rttMs: 2 }, { at: 2900, rttMs: 4 }], 3000);
    expect(pings).toEqual([
      { t: -1.9, ping: 2 },
      { t: -0.1, ping: 4 },
    ]);
  });

  it('shows recent pings alone when no frame was answered', () => {
    expect(latencySeries([], [{ at: 100, rttMs: 1 }, { at: 29_000, rttMs: 2 }], 30_000, 10_000)).toEqual({
      frames: [],
      pings: [{ t: -1, ping: 2 }],
      gaps: [],
      codecsInterleaved: false,
    });
  });

  it('breaks every frame line and reports a gap where no answers arrived for several intervals', () => {
    const samples: Sample[] = [];
    for (let i = 0; i < 10; i++) samples.push(sample('msgpack', 1000 + i * 100, 30)); // 1000..1900, 10 fps
    for (let i = 0; i < 5; i++) samples.push(sample('msgpack', 6000 + i * 100, 30)); // 4.1 s outage
    const { frames, gaps } = latencySeries(samples, [], 6500);
    expect(frames).toHaveLength(16);
    const breaks = frames.filter((row) => row.fullMsgpack === null);
    expect(breaks).toEqual([{ t: -2.55, fullJson: null, fullMsgpack: null, server: null, inference: null, networkQueue: null }]);
    expect(frames.indexOf(breaks[0]!)).toBe(10);
    expect(gaps).toEqual([{ from: -4.6, to: -0.5, open: false }]);
  });

  it('does not break the lines for ordinary jitter, and reports an outage still going on', () => {
    const times = [1000, 1100, 1180, 1350, 1400, 1500, 1900, 2000];
    const { frames, gaps } = latencySeries(times.map((t) => sample('json', t, 20)), [], 5000);
    expect(frames.every((row) => row.fullJson !== null)).toBe(true);
    expect(gaps).toEqual([{ from: -3, to: 0, open: true }]);
  });

  it('breaks the lines where a frame was lost between two answers', () => {
    const { frames } = latencySeries([sample('json', 1000, 20), sample('json', 1050, 20, 'lost'), sample('json', 1100, 20)], [], 1100);
    expect(frames.map((row) => row.fullJson)).toEqual([20, null, 20]);
  });

  it("breaks each codec's line where the other codec ran (A/B blocks)", () => {
    const samples: Sample[] = [];
    let t = 1000;
    for (const codec of ['json', 'msgpack', 'json'] as const) for (let i = 0; i < 5; i++) samples.push(sample(codec, (t += 100), codec === 'json' ? 40 : 30));
    const { frames, gaps, codecsInterleaved } = latencySeries(samples, [], t);
    expect(gaps).toEqual([]);
    expect(codecsInterleaved).toBe(false);
    // Every row holds exactly one codec's value and an explicit null for the other: no row joins the json blocks.
    expect(frames.map((row) => (row.fullJson !== null ? 'J' : row.fullMsgpack !== null ? 'M' : '-')).join('')).toBe('JJJJJMMMMMJJJJJ');
    expect(frames.slice(5, 10).every((row) => row.fullJson === null)).toBe(true);
    expect(frames.slice(0, 5).every((row) => row.fullMsgpack === null)).toBe(true);
  });

  it('flags A/B every frame as interleaved (drawn as dots)', () => {
    const samples = Array.from({ length: 12 }, (_, i) => sample(i % 2 ? 'json' : 'msgpack', 1000 + i * 100, 30));
    expect(latencySeries(samples, [], 2100).codecsInterleaved).toBe(true);
  });

  it('breaks the ping line where pings stopped', () => {
    const pings = [1000, 2000, 3000, 8000, 9000].map((at) => ({ at, rttMs: 5 }));
    const { pings: rows } = latencySeries([sample('json', 500, 20)], pings, 10_000);
    expect(rows.map((row) => row.ping)).toEqual([5, 5, 5, null, 5, 5]);
    expect(rows[3]!.t).toBe(-4.5);
  });
});
