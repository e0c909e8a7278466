import { describe, expect, it } from 'vitest';
import { SampleStore } from '../../../src/metrics/sample-store.ts';
import { bestColumn, CODEC_METRICS, ROUTE_METRICS, pingMetric, type StatMetric } from '../../../src/ui/stat-metrics.ts';
import { sample } from '../../support/samples.ts';

/** json and msgpack columns from `count` frames each, `jsonMs` and `msgpackMs` each. */
function columns(jsonMs: number, msgpackMs: number, count = 5) {
  const store = new SampleStore();
  for (let i = 0; i < count; i++) {
    store.add(sample('json', i * 100, jsonMs));
    store.add(sample('msgpack', i * 100 + 50, msgpackMs));
  }
  return (['json', 'msgpack'] as const).map((codec) => ({ id: codec, stats: store.stats({ path: 'gateway', codec }, 100) }));
}

const metric = (key: string, metrics: readonly StatMetric[] = CODEC_METRICS): StatMetric => metrics.find((m) => m.key === key)!;

describe('bestColumn', () => {
  it('names the column better by more than 2 % in the metric’s direction', () => {
    expect(bestColumn(metric('p50'), columns(40, 20))).toBe('msgpack');
    expect(bestColumn(metric('bytes-up'), columns(40, 20))).toBe('msgpack'); // 300 B against 400 B
    expect(bestColumn(metric('p50'), columns(20, 40))).toBe('json');
  });

  it('names none for a tie, a metric without a direction, or too few frames', () => {
    expect(bestColumn(metric('p50'), columns(40, 39.5))).toBeUndefined();
    expect(bestColumn(metric('dropped'), columns(40, 20))).toBeUndefined();
    expect(bestColumn(metric('p50'), columns(40, 20, 4))).toBeUndefined();
  });
});

describe('the rows', () => {
  it('holds every figure of the UI contract, per codec and per route', () => {
    expect(CODEC_METRICS.map((m) => m.key)).toEqual([
      'count',
      'p50',
      'p95',
      'p99',
      'mean',
      'stddev',
      'fps',
      'dropped',
      'errors',
      'lost',
      'skipped',
      'bytes-up',
      'bytes-down',
    ]);
    expect(ROUTE_METRICS.map((m) => m.key)).toEqual(['count', 'p50', 'p95', 'inference', 'server', 'network', 'fps', 'errors']);
  });

  it("shows the gateway's own time, the network and the ping beside the gateway only", () => {
    const gatewayOnly = [...ROUTE_METRICS, pingMetric(3)].filter((m) => m.columns).map((m) => [m.key, m.columns]);
    expect(gatewayOnly).toEqual([
      ['server', ['gateway']],
      ['network', ['gateway']],
      ['ping', ['gateway']],
    ]);
    const [json] = columns(40, 20);
    expect(pingMetric(3).value(json!.stats)).toBe(3);
    expect(pingMetric(undefined).value(json!.stats)).toBeNaN();
    expect(metric('errors', ROUTE_METRICS).label).toBe('Errors + lost');
  });
});
