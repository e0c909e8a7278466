import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { parseArgs } from '../bench/client/args.ts';
import { niceStep, renderLatencyChart } from '../bench/client/chart-svg.ts';
import { CSV_COLUMNS, csvCell, toCsv } from '../bench/client/csv.ts';
import { loadInputs, parseY4m, sniffContentType } from '../bench/client/inputs.ts';
import { countOutcomes, formatJson, formatSummary, summarizeBench, summarizeSamples } from '../bench/client/report.ts';
import type { BenchResult } from '../bench/client/run.ts';
import { wsHeaderBytes } from '../bench/client/transports/ws-connection.ts';
import type { NetSample, Sample } from '../bench/client/types.ts';

function sample(partial: Partial<Sample>): Sample {
  return { outcome: 'ok', latencyMs: 10, bytesUp: 100, bytesDown: 10, repeat: 0, client: 0, seq: 0, warmup: false, input: 'a.jpg', startMs: 0, ...partial };
}

describe('bench statistics', () => {
  // latencies 1..100 ms: known percentiles (linear interpolation), 10 frames/s over 10 s of wall time.
  const samples: Sample[] = [
    ...Array.from({ length: 100 }, (_, i) => sample({ seq: i, latencyMs: i + 1, serverMs: 0.5, inferenceMs: 0.25 })),
    sample({ seq: 100, outcome: 'dropped', latencyMs: 3, errorCode: 'superseded', bytesDown: 20 }),
    sample({ seq: 101, outcome: 'error', latencyMs: 3, errorCode: 'bad_image' }),
    sample({ seq: 102, outcome: 'timeout', latencyMs: Number.NaN, bytesDown: 0 }),
    sample({ seq: 103, outcome: 'failed', latencyMs: Number.NaN, bytesDown: 0 }),
    sample({ seq: 0, warmup: true, latencyMs: 5000, startMs: 50 }),
  ];
  const net: NetSample[] = [
    { repeat: 0, client: 0, kind: 'ping', ms: 2, phase: 'probe' },
    { repeat: 0, client: 0, kind: 'ping', ms: 4, phase: 'measure' },
    { repeat: 0, client: 0, kind: 'ping', ms: 1000, phase: 'warmup' },
  ];

  it('summarises latency of completed frames only, warm-up excluded', () => {
    const s = summarizeSamples(samples, net, 10_000, 2, 0);
    expect(s.latency.count).toBe(100);
    expect(s.latency.min).toBe(1);
    expect(s.latency.max).toBe(100);
    expect(s.latency.mean).toBeCloseTo(50.5);
    expect(s.latency.p50).toBeCloseTo(50.5);
    expect(s.latency.p95).toBeCloseTo(95.05);
    expect(s.latency.p99).toBeCloseTo(99.01);
    expect(s.latency.stddev).toBeCloseTo(29.011, 2);
    expect(s.serverMs.mean).toBe(0.5);
    expect(s.inferenceMs.p50).toBe(0.25);
    expect(s.network.ping).toMatchObject({ count: 2, mean: 3 });
  });

  it('throughput is completed frames over wall time, not 1000 / latency', () => {
    const s = summarizeSamples(samples, net, 10_000, 2, 0);
    expect(s.throughputFps).toBeCloseTo(10);
    expect(s.throughputPerClientFps).toBeCloseTo(5);
  });

  it('counts every outcome and the reasons', () => {
    expect(countOutcomes(samples.filter((x) => !x.warmup))).toEqual({ sent: 104, ok: 100, dropped: 1, errors: 1, timeouts: 1, failed: 1, unanswered: 2 });
    const s = summarizeSamples(samples, net, 10_000, 1, 0);
    expect(s.reasons).toEqual({ 'dropped:superseded': 1, 'error:bad_image': 1 });
  });

  it('bytes per frame average over answered frames', () => {
    const s = summarizeSamples(samples, net, 10_000, 1, 0);
    expect(s.bytesUpPerFrame).toBe(100);
    expect(s.bytesDownPerFrame).toBeCloseTo((100 * 10 + 20 + 10) / 102);
  });

  it('table, JSON and CSV carry the numbers', () => {
    const config = parseArgs(['--label', 'known, "data"'], undefined, { checkFiles: false });
    const result: BenchResult = {
      config,
      effectiveUrl: config.url,
      inputs: [{ name: 'a.jpg', width: 2, height: 2, contentType: 'image/jpeg', bytes: 100 }],
      hello: undefined,
      models: undefined,
      repeats: [{ repeat: 0, wallMs: 10_000, startedAt: '', samples, net, clientFailures: [] }],
    };
    const summary = summarizeBench(result);
    expect(summary.ok).toBe(false); // two frames unanswered
    const text = formatSummary(summary);
    expect(text).toContain('latency (full process)');
    expect(text).toMatch(/throughput\s+10\.00 frames\/s/);
    expect(text).toContain('2 unanswered');
    const json = JSON.parse(formatJson(summary));
    expect(json.overall.latency.p50).toBe(50.5);
    expect(json.overall.throughputFps).toBe(10);
    const csv = toCsv(result).trim().split('\n');
    expect(csv[0]).toBe(CSV_COLUMNS.join(','));
    expect(csv).toHaveLength(1 + samples.length);
    expect(csv[1]!.startsWith('"known, ""data""",0,0,0,1,')).toBe(true); // the warm-up frame starts first
    expect(csvCell(Number.NaN)).toBe('');
  });

  it('a run fails when a warm-up frame or a client went unanswered, though neither enters the statistics', () => {
    const config = parseArgs([], undefined, { checkFiles: false });
    const answered = Array.from({ length: 3 }, (_, i) => sample({ seq: i }));
    const run = (samples: Sample[], clientFailures: string[] = []): BenchResult => ({
      config,
      effectiveUrl: config.url,
      inputs: [{ name: 'a.jpg', width: 2, height: 2, contentType: 'image/jpeg', bytes: 100 }],
      hello: undefined,
      models: undefined,
      repeats: [{ repeat: 0, wallMs: 1000, startedAt: '', samples, net: [], clientFailures }],
    });
    expect(summarizeBench(run(answered)).ok).toBe(true);
    const lostWarmup = summarizeBench(run([sample({ warmup: true, outcome: 'timeout', latencyMs: Number.NaN }), ...answered]));
    expect(lostWarmup.overall.counts.unanswered).toBe(0);
    expect(lostWarmup.warmupUnanswered).toBe(1);
    expect(lostWarmup.ok).toBe(false);
    expect(summarizeBench(run(answered, ['client 1: connection lost'])).ok).toBe(false);
  });
});

describe('bench helpers', () => {
  it('WebSocket header sizes', () => {
    expect(wsHeaderBytes(125, false)).toBe(2);
    expect(wsHeaderBytes(126, true)).toBe(8);
    expect(wsHeaderBytes(65_535, false)).toBe(4);
    expect(wsHeaderBytes(65_536, true)).toBe(14);
  });

  it('sniffs image types', () => {
    expect(sniffContentType(new Uint8Array([0xff, 0xd8, 0xff, 0xe0]))).toBe('image/jpeg');
    expect(sniffContentType(new Uint8Array([0x89, 0x50, 0x4e, 0x47]))).toBe('image/png');
    expect(sniffContentType(new TextEncoder().encode('RIFF....WEBPVP8 '))).toBe('image/webp');
    expect(sniffContentType(new Uint8Array([1, 2, 3, 4]))).toBeUndefined();
  });

  it('decodes y4m 4:2:0 frames to RGB', () => {
    // 4x2 frames, two frames: mid-grey, then pure red-ish (BT.601: Y=81, U=90, V=240).
    const header = 'YUV4MPEG2 W4 H2 F25:1 Ip A1:1 C420jpeg\n';
    const frame = (y: number, u: number, v: number) => [Buffer.from('FRAME\n'), Buffer.alloc(8, y), Buffer.alloc(2, u), Buffer.alloc(2, v)];
    const data = Buffer.concat([Buffer.from(header), ...frame(128, 128, 128), ...frame(81, 90, 240)]);
    const frames = parseY4m(data, 10);
    expect(frames).toHaveLength(2);
    expect(frames[0]!.width).toBe(4);
    expect([...frames[0]!.rgb.subarray(0, 3)]).toEqual([130, 130, 130]);
    const [r, g, b] = frames[1]!.rgb;
    expect(r).toBeGreaterThan(240);
    expect(g).toBeLessThan(10);
    expect(b).toBeLessThan(10);
    expect(parseY4m(data, 1)).toHaveLength(1);
  });

  it('resizes and re-encodes inputs once, as JPEG', async () => {
    const frames = await loadInputs({ source: { kind: 'default' }, resize: { width: 240, height: 180 }, quality: 60 });
    expect(frames.length).toBeGreaterThan(0);
    for (const f of frames) {
      expect(f.contentType).toBe('image/jpeg');
      const meta = await sharp(f.bytes).metadata();
      expect([meta.width, meta.height, f.width, f.height]).toEqual([240, 180, 240, 180]);
    }
  });

  it('chart is a well-formed SVG with one curve per series', () => {
    const svg = renderLatencyChart([
      { name: 'a', values: [1, 2, 3, 4, 5] },
      { name: 'b <&>', values: [2, 4, 6, 8, 100] },
    ]);
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.trim().endsWith('</svg>')).toBe(true);
    expect(svg.match(/<path /g)).toHaveLength(2);
    expect(svg).toContain('b &lt;&amp;&gt;');
    expect(niceStep(100)).toBe(20);
    expect(niceStep(7)).toBe(2);
  });
});
