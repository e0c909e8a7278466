import { describe, expect, it } from 'vitest';
import { constantTrace, parseMahimahiTrace, TraceError, TraceRate } from '@sightline/shared/link';

describe('Mahimahi traces', () => {
  it('reads one timestamp per line; the last is the period; the mean rate counts 1500 bytes an opportunity', () => {
    const trace = parseMahimahiTrace('1\n1\n4\n\n10\n');
    expect([...trace.opportunities]).toEqual([1, 1, 4, 10]);
    expect(trace.periodMs).toBe(10);
    expect(trace.meanBps).toBe((4 * 1500 * 8 * 1000) / 10);
  });

  it('refuses what is not a trace, naming the file and line', () => {
    expect(() => parseMahimahiTrace('1\n2\nx\n', 'up.trace')).toThrow(
      new TraceError("up.trace:3: 'x' is not a millisecond timestamp (one integer per line)"),
    );
    expect(() => parseMahimahiTrace('5\n3\n', 't')).toThrow(/t:2: 3 comes after 5/);
    expect(() => parseMahimahiTrace('\n')).toThrow(/no timestamps/);
    expect(() => parseMahimahiTrace('0\n0\n')).toThrow(/period/);
  });

  it('serves bytes at opportunities only: a packet spans opportunities, small ones share one, idle ones are lost', () => {
    const rate = new TraceRate(parseMahimahiTrace('2\n5\n10\n'), 100);
    expect(rate.serialize(100, 1500)).toBe(102);
    expect(rate.serialize(100, 3000)).toBe(110); // 105 and 110
    expect(rate.serialize(100, 500)).toBe(112); // next period: 110 + 2
    expect(rate.serialize(100, 500)).toBe(112); // shares the opportunity
    expect(rate.serialize(100, 600)).toBe(115); // 500 left at 112, 100 at 115
    expect(rate.serialize(200, 100)).toBe(202); // 115 .. 200 went by unused
  });

  it('makes a constant trace for a rate', () => {
    const trace = constantTrace(12e6);
    expect(trace.opportunities.length).toBe(1000);
    expect(trace.meanBps).toBe(12e6);
  });
});
