import { describe, expect, it } from 'vitest';
import { SEED_VARIANTS, seedLinks } from '../../../../links/seeds/plan.ts';
import { modelRatio, seedPoints, seedTable, slowStartRounds, verdict, verdictLine, withoutServer } from '../../../../links/seeds/table.ts';
import { figuresOf } from '../../../../links/measurement.ts';
import type { CellOutcome } from '../../../../links/runner.ts';
import { measurement } from '../support.ts';

const delayOnly = SEED_VARIANTS.find((v) => v.id === 'delay')!;
const lossy = SEED_VARIANTS.find((v) => v.id === 'up10-loss')!;

/** A cell whose every frame took `latency` ms, `server` of them in the gateway, `bytes` up. */
function cell(linkName: string, id: string, latency: number, server = 2, bytes = 10_000): CellOutcome {
  const link = seedLinks(SEED_VARIANTS).find((l) => l.name === linkName)!;
  const m = measurement({ latenciesMs: [latency, latency], serverMs: [server, server], answeredBytesUp: 2 * bytes, answered: 2 });
  return { link, row: { id, transport: id, codec: id }, path: 'proxy', measurement: m };
}

describe('the round-trip model', () => {
  it('counts the round trips slow start adds to a request beyond the initial window', () => {
    expect(slowStartRounds(14_000)).toBe(0);
    expect(slowStartRounds(14_480)).toBe(0);
    expect(slowStartRounds(14_481)).toBe(1);
    // 10 + 20 segments: 30 x 1448 bytes go out in two flights.
    expect(slowStartRounds(30 * 1448)).toBe(1);
    expect(slowStartRounds(30 * 1448 + 1)).toBe(2);
  });

  it('is 2x when round trips are all there is, less where the server and serialization weigh, more with slow start', () => {
    expect(modelRatio({ delayMs: 20, serverMs: 0, upBytes: 10_000, upRateBps: undefined, slowStart: false })).toBe(2);
    // The study at 5 ms: a 2 ms server keeps it near 2x.
    expect(modelRatio({ delayMs: 5, serverMs: 2, upBytes: 10_000, upRateBps: undefined, slowStart: false })).toBeCloseTo(22 / 12);
    // 40 KB at 2 Mbit/s is 160 ms of serialization, paid by both.
    expect(modelRatio({ delayMs: 20, serverMs: 20, upBytes: 40_000, upRateBps: 2e6, slowStart: false })).toBeCloseTo(260 / 220);
    // On real TCP, 40 KB from a new connection's initial window takes one more round trip.
    expect(modelRatio({ delayMs: 100, serverMs: 0, upBytes: 40_000, upRateBps: undefined, slowStart: true })).toBe(3);
  });

  it('judges "about 2x" within 10%', () => {
    expect([1.79, 1.8, 2, 2.2, 2.21].map(verdict)).toEqual(['below', 'holds', 'holds', 'holds', 'above']);
    expect(verdict(undefined)).toBe('n/a');
    expect(verdict(Number.NaN)).toBe('n/a');
  });
});

describe('the experiment’s tables', () => {
  const outcomes = [
    cell('delay@5', 'ws-msgpack', 12),
    cell('delay@5', 'rest-msgpack', 24),
    cell('delay@5', 'ws-json', 12),
    cell('delay@5', 'rest-json', 36),
    cell('delay@5', 'rest-keepalive-msgpack', 12.6),
    cell('delay@320', 'ws-msgpack', 100, 80),
    cell('delay@320', 'rest-msgpack', 150, 80),
    cell('up10-loss@40', 'ws-msgpack', 100),
  ];

  it('has per delay the REST / WebSocket ratio of means in each codec, the model, and the verdicts', () => {
    const points = seedPoints(outcomes, delayOnly);
    expect(points.map((p) => p.delayMs)).toEqual([5, 320]);
    expect(points[0]!.ratio).toEqual({ msgpack: 2, json: 3 });
    expect(points[0]!.verdicts).toEqual({ msgpack: 'holds', json: 'above' });
    expect(points[0]!.model).toBeCloseTo(22 / 12);
    expect(points[1]!.ratio).toEqual({ msgpack: 1.5 });
    expect(points[1]!.verdicts).toEqual({ msgpack: 'below', json: 'n/a' });
    expect(seedPoints(outcomes, lossy)[0]!.ratio).toEqual({});
    const table = seedTable(points, delayOnly);
    expect(table.split('\n')[2]).toBe(
      '| 5 ms | 12.0 / 12.0 | 24.0 / 24.0 | **2.00x** | 2.20x | 12.0 | 36.0 | **3.00x** | 1.83x | 1.05x | 2.0 | yes / **no, above** | 2.03x (12.2 / 24.8) |',
    );
    expect(table.split('\n')[3]).toMatch(/^\| 320 ms \| .* \| \*\*1\.50x\*\* \| 3\.50x \| - \| - \| \*\*-\*\* \|/);
    expect(table).toContain('2.00x (327.8 / 654.9)');
    expect(seedTable(points, lossy)).not.toContain('edge study');
  });

  it('takes each one’s server time out for the ratio of the link and the protocol alone', () => {
    const rest = figuresOf(measurement({ latenciesMs: [150], serverMs: [80] }));
    const ws = figuresOf(measurement({ latenciesMs: [100], serverMs: [80] }));
    expect(withoutServer(rest, ws)).toBeCloseTo(3.5);
    expect(withoutServer(undefined, ws)).toBeUndefined();
  });

  it('says in one line where about 2x held, fell short or was exceeded', () => {
    const line = verdictLine(seedPoints(outcomes, delayOnly), delayOnly);
    expect(line).toMatch(
      /^- \*\*Delay only \(the study's condition\)\*\*: below at 320 ms; the codecs differ at 5 ms; measured against the round-trip model/,
    );
  });
});
