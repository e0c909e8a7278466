import { describe, expect, it } from 'vitest';
import { createMetrics, observeStages } from '../../src/metrics.ts';

const timings = { queueMs: 0.02, decodeMs: 4.8, preprocessMs: 0.9, inferenceMs: 17.2, postprocessMs: 0.5, serverMs: 23.9 };

/** The value of the one sample of `name` carrying every label given, whatever their order. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([key, value]) => l.includes(`${key}="${value}"`)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('metrics', () => {
  it("follow Prometheus' naming: counters end in _total, gauges do not, times are in seconds", async () => {
    const metrics = createMetrics('test-1');
    // prom-client's default process and Node.js metrics are named by prom-client (prefixed here); the rest are ours.
    const own = (await metrics.registry.getMetricsAsJSON()).filter((family) => !/^sightline_(process|nodejs)_/.test(family.name));
    expect(own.map((family) => family.name)).toContain('sightline_stage_seconds');
    for (const family of own) {
      // prom-client's typings declare a numeric enum, but the value is the exposition's type name ('counter', ...).
      const type = String(family.type);
      expect(family.name).toMatch(/^sightline_[a-z_]+$/);
      if (type === 'counter') expect(family.name).toMatch(/_total$/);
      else expect(family.name).not.toMatch(/_total$/);
      if (type === 'histogram') expect(family.name).toMatch(/_seconds$/);
      expect(family.name).not.toMatch(/_ms$|_ms_|milli/);
    }
  });

  it('record a reply timed in milliseconds as seconds: each stage by its name, the whole apart', async () => {
    const metrics = createMetrics('test-1');
    observeStages(metrics, 'ssd', timings, { decoder: 'turbo', runner: 'local' });
    const text = await metrics.registry.metrics();
    const local = { model: 'ssd', runner: 'local', gateway_instance: 'test-1' };
    expect(sample(text, 'sightline_stage_seconds_sum', { ...local, stage: 'inference' })).toBeCloseTo(0.0172, 10);
    expect(sample(text, 'sightline_stage_seconds_sum', { ...local, stage: 'queue' })).toBeCloseTo(0.00002, 10);
    expect(sample(text, 'sightline_frame_seconds_sum', local)).toBeCloseTo(0.0239, 10);
    // The whole is not a stage: a sum over the stages does not count it twice.
    expect(text).not.toMatch(/stage="server/);
    // 4.8 ms lands in the 8 ms bucket, not the 4 ms one.
    expect(sample(text, 'sightline_stage_seconds_bucket', { ...local, stage: 'decode', le: '0.008' })).toBe(1);
    expect(sample(text, 'sightline_stage_seconds_bucket', { ...local, stage: 'decode', le: '0.004' })).toBe(0);
    expect(sample(text, 'sightline_decodes_total', { decoder: 'turbo' })).toBe(1);
  });
});
