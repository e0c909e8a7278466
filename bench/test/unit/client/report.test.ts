import { describe, expect, it } from 'vitest';
import { countOutcomes, formatJson, formatSummary, summarizeBench, summarizeSamples } from '../../../client/report.ts';
import { benchResult, KNOWN_FRAMES, KNOWN_NET, measurement } from '../../support/measurements.ts';

describe('bench statistics', () => {
  const samples = KNOWN_FRAMES;
  const net = KNOWN_NET;

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
    expect(countOutcomes(samples.filter((x) => !x.warmup))).toEqual({
      sent: 104,
      held: 0,
      ok: 100,
      dropped: 1,
      errors: 1,
      timeouts: 1,
      failed: 1,
      unanswered: 2,
    });
    const s = summarizeSamples(samples, net, 10_000, 1, 0);
    expect(s.reasons).toEqual({ 'dropped:superseded': 1, 'error:bad_image': 1 });
  });

  it('leaves frames held back by a retryAfterMs out of those sent and answered', () => {
    const held = { ...samples[0]!, outcome: 'held' as const, latencyMs: Number.NaN, bytesUp: 0, bytesDown: 0 };
    const counts = countOutcomes([...samples.filter((x) => !x.warmup), held, held]);
    expect(counts).toMatchObject({ sent: 104, held: 2, ok: 100, unanswered: 2 });
  });

  it('bytes per frame average over answered frames', () => {
    const s = summarizeSamples(samples, net, 10_000, 1, 0);
    expect(s.bytesUpPerFrame).toBe(100);
    expect(s.bytesDownPerFrame).toBeCloseTo((100 * 10 + 20 + 10) / 102);
  });

  it('table and JSON carry the numbers', () => {
    const summary = summarizeBench(benchResult(samples, { argv: ['--label', 'known, "data"'], net, wallMs: 10_000 }));
    expect(summary.ok).toBe(false); // two frames unanswered
    const text = formatSummary(summary);
    expect(text).toContain('latency (full process)');
    expect(text).toMatch(/throughput\s+10\.00 frames\/s/);
    expect(text).toContain('2 unanswered');
    const json = JSON.parse(formatJson(summary));
    expect(json.overall.latency.p50).toBe(50.5);
    expect(json.overall.throughputFps).toBe(10);
  });

  it('a run fails when a warm-up frame or a client went unanswered, though neither enters the statistics', () => {
    const answered = Array.from({ length: 3 }, (_, i) => measurement({ seq: i }));
    expect(summarizeBench(benchResult(answered)).ok).toBe(true);
    const lostWarmup = summarizeBench(benchResult([measurement({ warmup: true, outcome: 'timeout', latencyMs: Number.NaN }), ...answered]));
    expect(lostWarmup.overall.counts.unanswered).toBe(0);
    expect(lostWarmup.warmupUnanswered).toBe(1);
    expect(lostWarmup.ok).toBe(false);
    expect(summarizeBench(benchResult(answered, { clientFailures: ['client 1: connection lost'] })).ok).toBe(false);
  });

  it('open loop: latency is labelled from the schedule, with the offered rate and the send lag', () => {
    const frames = Array.from({ length: 4 }, (_, i) => measurement({ seq: i, sendLagMs: i * 2 }));
    const summary = summarizeBench(benchResult(frames, { argv: ['--rate', '25', '--clients', '2'] }));
    expect(summary.rateFps).toBe(25);
    expect(summary.overall.sendLagMs).toMatchObject({ count: 4, max: 6 });
    const text = formatSummary(summary);
    expect(text).toContain('latency (from schedule)');
    expect(text).toContain('send lag (behind schedule)');
    expect(text).toMatch(/offered\s+50\.00 frames\/s \(2 x 25 fps, open loop\)/);
    expect(summary.setup).toContain('open-loop 25 fps');
  });

  it('closed loop shows no send lag row', () => {
    const text = formatSummary(summarizeBench(benchResult([measurement({})])));
    expect(text).not.toContain('send lag');
    expect(text).not.toContain('offered');
  });

  it('shows connections and frames per replica when more than one served the run', () => {
    const frames = [
      measurement({ client: 0, instance: 'gw-a' }),
      measurement({ client: 0, instance: 'gw-a', outcome: 'dropped', errorCode: 'superseded' }),
      measurement({ client: 1, instance: 'gw-b' }),
      measurement({ client: 1, instance: 'gw-b', warmup: true }),
    ];
    const connections = [
      { client: 0, instance: 'gw-a', phase: 'probe' as const },
      { client: 1, instance: 'gw-b', phase: 'probe' as const },
      { client: 2, instance: 'gw-b', phase: 'probe' as const },
    ];
    const summary = summarizeBench(benchResult(frames, { argv: ['--clients', '3'], connections }));
    expect(summary.overall.instances).toEqual([
      { instance: 'gw-a', connections: 1, frames: 2, ok: 1 },
      { instance: 'gw-b', connections: 2, frames: 1, ok: 1 },
    ]);
    expect(formatSummary(summary)).toContain('replicas     gw-a: 1 connection(s), 2 frames (1 ok); gw-b: 2 connection(s), 1 frames (1 ok)');
    expect(JSON.parse(formatJson(summary)).overall.instances).toHaveLength(2);
  });

  it('says nothing of replicas when one served it, or none named itself', () => {
    const one = summarizeBench(
      benchResult([measurement({ instance: 'gw-a' })], { connections: [{ client: 0, instance: 'gw-a', phase: 'probe' }] }),
    );
    expect(one.overall.instances).toEqual([{ instance: 'gw-a', connections: 1, frames: 1, ok: 1 }]);
    expect(formatSummary(one)).not.toContain('replicas');
    expect(summarizeBench(benchResult([measurement({})])).overall.instances).toEqual([]);
  });
});
