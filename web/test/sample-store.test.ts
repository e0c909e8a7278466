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

  it('measures FPS as completed frames over the time each codec was streaming', () => {
    const store = new SampleStore();
    // A/B: 10 json answers 50 ms apart, then 10 msgpack answers 25 ms apart.
    let t = 1000;
    for (let i = 0; i < 10; i++) store.add(sample('json', (t += 50), 40));
    for (let i = 0; i < 10; i++) store.add(sample('msgpack', (t += 25), 20));
    const stats = store.statsByCodec(100);
    // First json answer has no predecessor: 9 completed over 450 ms would be 20 fps; 10 over 450 ms is what is counted.
    expect(stats.json.fps).toBeCloseTo((10 * 1000) / 450, 6);
    expect(stats.msgpack.fps).toBeCloseTo(40, 6);
  });

  it('does not count a pause as streaming time', () => {
    const store = new SampleStore();
    store.add(sample('json', 100, 10));
    store.add(sample('json', 200, 10));
    store.markBreak();
    store.add(sample('json', 60_000, 10));
    store.add(sample('json', 60_100, 10));
    expect(store.statsFor('json', 100).fps).toBeCloseTo((4 * 1000) / 200, 6);
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
        frame: { id: 7, codec: 'json', sentAt: 1000, bytesUp: 1234, encodeMs: 0.5, model: undefined, threshold: 0.5 },
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
    });
  });
});

describe('latencySeries', () => {
  it('puts each codec on its own full-latency series and skips unanswered frames', () => {
    const { frames } = latencySeries([sample('json', 1000, 40), sample('msgpack', 2000, 30), sample('msgpack', 2500, 30, 'dropped')], [], 3000);
    expect(frames).toEqual([
      { t: -2, fullJson: 40, server: 20, inference: 10, networkQueue: 20 },
      { t: -1, fullMsgpack: 30, server: 15, inference: 7.5, networkQueue: 15 },
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
    expect(latencySeries([], [{ at: 100, rttMs: 1 }, { at: 29_000, rttMs: 2 }], 30_000, 10_000)).toEqual({ frames: [], pings: [{ t: -1, ping: 2 }] });
  });
});
