import { describe, expect, it } from 'vitest';
import { SampleStore } from '../../../src/metrics/sample-store.ts';
import { deviceSample, sample } from '../../support/samples.ts';

const byCodec = (store: SampleStore, window: number) => ({
  json: store.stats({ path: 'gateway', codec: 'json' }, window),
  msgpack: store.stats({ path: 'gateway', codec: 'msgpack' }, window),
});

describe('SampleStore', () => {
  it('tells the same codec over two transports apart, and lists the codecs and transports frames went in', () => {
    const store = new SampleStore();
    store.add(sample('msgpack', 100, 10));
    store.add(sample('msgpack', 200, 30, 'ok', { transport: 'webrtc' }));
    store.add(sample('vp8', 300, 20, 'ok', { transport: 'webrtc', bytesUp: 900 }));
    store.add(deviceSample(400, 50));
    expect(store.stats({ path: 'gateway', codec: 'msgpack', transport: 'websocket' }, 100).full.p50).toBe(10);
    expect(store.stats({ path: 'gateway', codec: 'msgpack', transport: 'webrtc' }, 100).full.p50).toBe(30);
    expect(store.stats({ path: 'gateway', codec: 'msgpack' }, 100).count).toBe(2);
    expect(store.stats({ path: 'gateway', codec: 'vp8', transport: 'webrtc' }, 100).bytesUpMean).toBe(900);
    expect(store.streamKinds()).toEqual([
      { transport: 'websocket', codec: 'msgpack' },
      { transport: 'webrtc', codec: 'msgpack' },
      { transport: 'webrtc', codec: 'vp8' },
    ]);
    store.clear();
    expect(store.streamKinds()).toEqual([]);
  });

  it('computes stats per codec from its own samples only', () => {
    const store = new SampleStore();
    let t = 0;
    for (let i = 1; i <= 10; i++) store.add(sample('json', (t += 100), i * 10));
    for (let i = 1; i <= 4; i++) store.add(sample('msgpack', (t += 50), 5));
    const stats = byCodec(store, 1000);
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
    const stats = store.stats({ path: 'gateway', codec: 'json' }, 20);
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
    const stats = store.stats({ path: 'gateway', codec: 'msgpack' }, 100);
    expect(stats).toMatchObject({ count: 1, dropped: 1, errors: 1, lost: 1 });
    expect(stats.full.p50).toBe(20);
  });

  it('sums the client-side skipped source frames per codec, within the window', () => {
    const store = new SampleStore();
    store.add(sample('msgpack', 10, 20, 'ok', { skippedBefore: 9 }));
    store.add(sample('msgpack', 20, 20, 'ok', { skippedBefore: 2 }));
    store.add(sample('json', 30, 20, 'ok', { skippedBefore: 4 }));
    store.add(sample('msgpack', 40, 5, 'lost', { skippedBefore: 1 }));
    expect(store.stats({ path: 'gateway', codec: 'msgpack' }, 100).skipped).toBe(12);
    expect(store.stats({ path: 'gateway', codec: 'msgpack' }, 2).skipped).toBe(3);
    expect(store.stats({ path: 'gateway', codec: 'json' }, 100).skipped).toBe(4);
  });

  it('measures FPS as completed frames over the time each codec was streaming', () => {
    const store = new SampleStore();
    // A/B: 10 json answers 50 ms apart, then 10 msgpack answers 25 ms apart.
    let t = 1000;
    for (let i = 0; i < 10; i++) store.add(sample('json', (t += 50), 40));
    for (let i = 0; i < 10; i++) store.add(sample('msgpack', (t += 25), 20));
    const stats = byCodec(store, 100);
    // The first json answer has no predecessor: 9 timed answers over 450 ms = 20 fps (not 10 / 450 ms = 22.2).
    expect(stats.json.fps).toBeCloseTo(20, 9);
    // The first msgpack answer's 25 ms since the last json answer is msgpack streaming time.
    expect(stats.msgpack.fps).toBeCloseTo(40, 9);
  });

  it('gives exactly 10 fps for 11 frames 100 ms apart', () => {
    const store = new SampleStore();
    for (let i = 0; i <= 10; i++) store.add(sample('msgpack', 5000 + i * 100, 30));
    const stats = store.stats({ path: 'gateway', codec: 'msgpack' }, 100);
    expect(stats.count).toBe(11);
    expect(stats.fps).toBe(10);
  });

  it('has no FPS before a second answer, and counts dropped answers as time but not frames', () => {
    const store = new SampleStore();
    store.add(sample('json', 100, 10));
    expect(Number.isNaN(store.stats({ path: 'gateway', codec: 'json' }, 100).fps)).toBe(true);
    store.add(sample('json', 200, 10, 'dropped'));
    store.add(sample('json', 300, 10));
    // 1 completed frame over the 200 ms since the first answer.
    expect(store.stats({ path: 'gateway', codec: 'json' }, 100).fps).toBe(5);
  });

  it('restarts the count after a lost frame', () => {
    const store = new SampleStore();
    store.add(sample('json', 100, 10));
    store.add(sample('json', 200, 10));
    store.add(sample('json', 5000, 10, 'lost'));
    store.add(sample('json', 9000, 10));
    store.add(sample('json', 9100, 10));
    expect(store.stats({ path: 'gateway', codec: 'json' }, 100).fps).toBe(10);
  });

  it('does not count a pause as streaming time', () => {
    const store = new SampleStore();
    store.add(sample('json', 100, 10));
    store.add(sample('json', 200, 10));
    store.markBreak();
    store.add(sample('json', 60_000, 10));
    store.add(sample('json', 60_100, 10));
    // Two runs of two answers 100 ms apart: 2 timed answers over 200 ms.
    expect(store.stats({ path: 'gateway', codec: 'json' }, 100).fps).toBe(10);
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
    expect(store.stats({ path: 'gateway', codec: 'json' }, 10).count).toBe(0);
    expect(Number.isNaN(store.stats({ path: 'gateway', codec: 'json' }, 10).full.p50)).toBe(true);
  });

  it('computes stats per route: the gateway (both codecs) apart from this device', () => {
    const store = new SampleStore();
    let t = 0;
    for (let i = 0; i < 4; i++) {
      store.add(sample(i % 2 ? 'json' : 'msgpack', (t += 100), 20));
      store.add(deviceSample((t += 100), 60));
    }
    store.add(deviceSample(t + 100, 60, 'lost'));
    const gateway = store.stats({ path: 'gateway' }, 100);
    const device = store.stats({ path: 'device' }, 100);
    expect(gateway).toMatchObject({ count: 4, lost: 0, bytesUpMean: 350 });
    expect(gateway.full.p50).toBe(20);
    expect(gateway.server.p50).toBe(10);
    expect(gateway.networkQueue.p50).toBe(10);
    expect(device).toMatchObject({ count: 4, lost: 1, lastAnsweredPerf: 800, bytesUpMean: 0 });
    expect(device.full.p50).toBe(60);
    expect(device.inference.p50).toBe(20);
    expect(device.server.count).toBe(0);
    // Each answer's interval to the previous one is this route's: 100 ms each, the first has none.
    expect(device.fps).toBe(10);
    // The codec stats leave this device's frames out.
    expect(store.stats({ path: 'gateway', codec: 'msgpack' }, 100).count + store.stats({ path: 'gateway', codec: 'json' }, 100).count).toBe(
      4,
    );
    expect(store.stats({ path: 'device' }, 2).count).toBe(1);
    // Several windows from one scan give what one window each gives.
    const [recent, all] = store.statsWindows({ path: 'device' }, [3, 100]);
    expect(recent).toEqual(store.stats({ path: 'device' }, 3));
    expect(all).toEqual(device);
  });

  it('says when a sample came in and when it was emptied', () => {
    const store = new SampleStore();
    const changes: string[] = [];
    store.changed.subscribe((change) => changes.push(change));
    store.add(sample('json', 100, 10));
    store.markBreak();
    store.clear();
    expect(changes).toEqual(['added', 'cleared']);
  });

  it('keeps the links apart: stats and recent samples of one link, this device’s with any, and the links in the order measured', () => {
    const store = new SampleStore();
    store.add(sample('json', 100, 5, 'ok', { link: 'none' }));
    store.add(sample('json', 200, 90, 'ok', { link: 'lte' }));
    store.add(deviceSample(250, 60));
    store.add(sample('msgpack', 300, 95, 'ok', { link: 'lte' }));
    store.add(sample('json', 400, 6, 'ok', { link: 'none' }));
    expect(store.stats({ path: 'gateway', link: 'lte' }, 10)).toMatchObject({ count: 2, full: { p50: 92.5 } });
    expect(store.stats({ path: 'gateway', codec: 'json', link: 'none' }, 10)).toMatchObject({ count: 2, full: { p50: 5.5 } });
    expect(store.stats({ path: 'gateway' }, 10).count).toBe(4);
    expect(store.recent(10, 'lte').map((s) => s.fullMs)).toEqual([90, 60, 95]);
    expect(store.recent(2, 'none').map((s) => s.fullMs)).toEqual([60, 6]);
    expect(store.links()).toEqual(['none', 'lte']);
  });
});
