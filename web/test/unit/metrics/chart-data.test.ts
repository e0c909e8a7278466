import { describe, expect, it } from 'vitest';
import { latencySeries } from '../../../src/metrics/chart-data.ts';
import type { FrameSample } from '../../../src/metrics/frame-sample.ts';
import { deviceSample, sample } from '../../support/samples.ts';

/** Every full-latency line without a point: a row has a value on one of them at most. */
const NO_FULL = { fullJson: null, fullMsgpack: null, fullVideo: null, fullDataChannel: null, fullTrack: null };

describe('latencySeries', () => {
  it('puts each codec on its own full-latency series and skips unanswered frames', () => {
    const { frames } = latencySeries(
      [sample('json', 1000, 40), sample('msgpack', 2000, 30), sample('msgpack', 2500, 30, 'dropped')],
      [],
      3000,
    );
    expect(frames).toEqual([
      { t: -2, ...NO_FULL, fullJson: 40, server: 20, inference: 10, networkQueue: 20 },
      { t: -1, ...NO_FULL, fullMsgpack: 30, server: 15, inference: 7.5, networkQueue: 15 },
    ]);
  });

  it('draws video chunks, the data channel and the video track each on a line of its own, named in linesWithData', () => {
    const { frames, linesWithData } = latencySeries(
      [
        sample('vp8', 1000, 40),
        sample('msgpack', 1500, 30, 'ok', { transport: 'webrtc' }),
        sample('h264', 2000, 50, 'ok', { transport: 'webrtc' }),
        sample('msgpack', 2500, 20),
      ],
      [],
      3000,
    );
    expect(
      frames.map(({ fullJson, fullMsgpack, fullVideo, fullDataChannel, fullTrack }) => ({
        fullJson,
        fullMsgpack,
        fullVideo,
        fullDataChannel,
        fullTrack,
      })),
    ).toEqual([
      { ...NO_FULL, fullVideo: 40 },
      { ...NO_FULL, fullDataChannel: 30 },
      { ...NO_FULL, fullTrack: 50 },
      { ...NO_FULL, fullMsgpack: 20 },
    ]);
    expect(linesWithData).toEqual(['fullMsgpack', 'fullVideo', 'fullDataChannel', 'fullTrack']);
  });

  it('keeps pings apart, from the first charted frame on', () => {
    const { pings } = latencySeries(
      [sample('json', 1000, 40)],
      [
        { at: 200, rttMs: 9 },
        { at: 1100, rttMs: 2 },
        { at: 2900, rttMs: 4 },
      ],
      3000,
    );
    expect(pings).toEqual([
      { t: -1.9, ping: 2 },
      { t: -0.1, ping: 4 },
    ]);
  });

  it('shows recent pings alone when no frame was answered', () => {
    expect(
      latencySeries(
        [],
        [
          { at: 100, rttMs: 1 },
          { at: 29_000, rttMs: 2 },
        ],
        30_000,
        10_000,
      ),
    ).toEqual({
      frames: [],
      device: [],
      pings: [{ t: -1, ping: 2 }],
      gaps: [],
      codecsInterleaved: false,
      linesWithData: [],
    });
  });

  it('breaks every frame line and reports a gap where no answers arrived for several intervals', () => {
    const samples: FrameSample[] = [];
    for (let i = 0; i < 10; i++) samples.push(sample('msgpack', 1000 + i * 100, 30)); // 1000..1900, 10 fps
    for (let i = 0; i < 5; i++) samples.push(sample('msgpack', 6000 + i * 100, 30)); // 4.1 s outage
    const { frames, gaps } = latencySeries(samples, [], 6500);
    expect(frames).toHaveLength(16);
    const breaks = frames.filter((row) => row.fullMsgpack === null);
    expect(breaks).toEqual([{ t: -2.55, ...NO_FULL, server: null, inference: null, networkQueue: null }]);
    expect(frames.indexOf(breaks[0]!)).toBe(10);
    expect(gaps).toEqual([{ from: -4.6, to: -0.5, open: false }]);
  });

  it('does not break the lines for ordinary jitter, and reports an outage still going on', () => {
    const times = [1000, 1100, 1180, 1350, 1400, 1500, 1900, 2000];
    const { frames, gaps } = latencySeries(
      times.map((t) => sample('json', t, 20)),
      [],
      5000,
    );
    expect(frames.every((row) => row.fullJson !== null)).toBe(true);
    expect(gaps).toEqual([{ from: -3, to: 0, open: true }]);
  });

  it('breaks the lines where a frame was lost between two answers', () => {
    const { frames } = latencySeries([sample('json', 1000, 20), sample('json', 1050, 20, 'lost'), sample('json', 1100, 20)], [], 1100);
    expect(frames.map((row) => row.fullJson)).toEqual([20, null, 20]);
  });

  it("breaks each codec's line where the other codec ran (A/B blocks)", () => {
    const samples: FrameSample[] = [];
    let t = 1000;
    for (const codec of ['json', 'msgpack', 'json'] as const)
      for (let i = 0; i < 5; i++) samples.push(sample(codec, (t += 100), codec === 'json' ? 40 : 30));
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

  it("charts this device's frames on their own lines, each route joining its own frames in Both", () => {
    const samples = [
      sample('msgpack', 1000, 20),
      deviceSample(1100, 60),
      sample('msgpack', 1200, 22),
      deviceSample(1300, 66, 'ok', { inferenceMs: 50 }),
    ];
    const series = latencySeries(samples, [], 2000);
    expect(series.frames.map((row) => row.fullMsgpack)).toEqual([20, 22]);
    expect(series.frames.every((row) => row.device === undefined)).toBe(true);
    expect(series.device).toEqual([
      { t: -0.9, device: 60, deviceInference: 20 },
      { t: -0.7, device: 66, deviceInference: 50 },
    ]);
    expect(series.gaps).toEqual([]);
    // Alternating routes is not the codec A/B mode: the gateway's lines stay lines.
    expect(series.codecsInterleaved).toBe(false);
  });

  it("breaks this device's line where one of its frames was lost, and shades silences of every route", () => {
    const samples = [1000, 1100, 1200, 1300, 1400, 9000].map((at) => deviceSample(at, 60, at === 1100 ? 'lost' : 'ok'));
    const series = latencySeries(samples, [], 9000);
    expect(series.device.filter((row) => row.device === null)).toHaveLength(2);
    expect(series.gaps).toEqual([{ from: -7.6, to: 0, open: false }]);
  });
});
