import { describe, expect, it } from 'vitest';
import { naiveClientArgv, naiveClientCommand, parseNaiveReport } from '../../../baselines/naive-client.ts';

const options = { url: 'http://127.0.0.1:8080', clients: 6, durationS: 15, warmup: 3, timeoutS: 30, framesDir: '/tmp/frames' };

const client = {
  client: 0,
  hello: true,
  closed: null,
  warmupUnanswered: 0,
  sent: 2,
  detections: 1,
  dropped: { overloaded: 1 },
  errors: {},
  other: 0,
  otherKinds: {},
  unanswered: 0,
  latencyMs: { count: 1, p50: 5, p95: 5, p99: 5, max: 5 },
  serverMs: { count: 1, p50: 4, p95: 4, p99: 4, max: 4 },
  samples: { latencyMs: [5], serverMs: [4] },
};
const report = {
  client: 'naive_client.py (websockets 17.4, Python 3.11.7)',
  url: 'ws://127.0.0.1:8080/ws',
  clients: 1,
  durationS: 1,
  warmup: 3,
  wallS: 1.02,
  total: { sent: 2, detections: 1, dropped: { overloaded: 1 }, errors: {}, other: 0, otherKinds: {}, unanswered: 0, detectionsPerS: 0.98 },
  perClient: [client],
};

describe('the naive Python client from Node', () => {
  it('asks for every sample, so halves can be pooled, and the model only when given', () => {
    expect(naiveClientArgv(options)).toEqual([
      '--url',
      'http://127.0.0.1:8080',
      '--clients',
      '6',
      '--duration',
      '15',
      '--warmup',
      '3',
      '--timeout',
      '30',
      '--dir',
      '/tmp/frames',
      '--samples',
    ]);
    expect(naiveClientArgv({ ...options, model: 'blazeface-back-256', threshold: 0.5 })).toContain('blazeface-back-256');
    expect(naiveClientCommand({ ...options, framesDir: '/tmp/my frames' })).toBe(
      ".venvs/naive-client/bin/python bench/baselines/naive-client/naive_client.py --url http://127.0.0.1:8080 --clients 6 --duration 15 --warmup 3 --timeout 30 --dir '/tmp/my frames' --samples",
    );
  });

  it('reads the last line of its output as the report', () => {
    expect(parseNaiveReport(`a warning\n${JSON.stringify(report)}\n`)).toEqual(report);
  });

  it('refuses a report it cannot pool, saying what is missing', () => {
    expect(() => parseNaiveReport('Traceback (most recent call last)')).toThrow(/printed no JSON report/);
    expect(() => parseNaiveReport(JSON.stringify({ ...report, wallS: undefined }))).toThrow(/no wallS/);
    expect(() => parseNaiveReport(JSON.stringify({ ...report, total: { ...report.total, sent: '2' } }))).toThrow(/total\.sent/);
    const noSamples = { ...client, samples: undefined };
    expect(() => parseNaiveReport(JSON.stringify({ ...report, perClient: [noSamples] }))).toThrow(/no latency samples/);
    expect(() => parseNaiveReport(JSON.stringify({ ...report, perClient: [{ ...client, dropped: { overloaded: 'x' } }] }))).toThrow(
      /perClient\[0\]\.dropped/,
    );
  });
});
