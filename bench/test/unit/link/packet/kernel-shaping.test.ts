import { describe, expect, it } from 'vitest';
import { parseLinkSpec } from '@sightline/shared/link';
import { tbfArguments, tbfBurstBytes, withoutShaping } from '../../../../link/packet/kernel-shaping.ts';

describe('kernel shaping (tbf)', () => {
  it("shapes a device's egress at the rate with the direction's queue as tbf's byte limit", () => {
    expect(tbfArguments('slabcdefh', parseLinkSpec('bw=8mbit,queue=100ms').up)).toEqual([
      'qdisc',
      'replace',
      'dev',
      'slabcdefh',
      'root',
      'tbf',
      'rate',
      '8000000bit',
      'burst',
      '4000',
      'limit',
      '100000',
    ]);
    // The bucket holds at least two packets at low rates; the limit at least the bucket.
    expect(tbfBurstBytes(1e6)).toBe(3000);
    expect(tbfArguments('d', parseLinkSpec('bw=1mbit,queue=1500b').up)?.slice(-2)).toEqual(['limit', '3000']);
  });

  it('has nothing to do without a rate, and no trace-driven rate', () => {
    expect(tbfArguments('d', parseLinkSpec('delay=10ms').up)).toBeUndefined();
    expect(() => tbfArguments('d', parseLinkSpec('trace-up=x.trace').up)).toThrow(/no trace-driven rate/);
  });

  it('leaves delay, jitter and loss to the forwarder', () => {
    expect(withoutShaping(parseLinkSpec('bw=2mbit,queue=50ms,delay=10ms,jitter=2ms,loss=1%').up)).toEqual({
      delayMs: 10,
      jitterMs: 2,
      loss: { kind: 'random', rate: 0.01 },
    });
  });
});
