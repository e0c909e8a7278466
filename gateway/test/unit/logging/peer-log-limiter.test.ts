import { describe, expect, it } from 'vitest';
import { PeerLogLimiter } from '../../../src/logging/peer-log-limiter.ts';

describe('peer log limiter', () => {
  it('logs a few lines per peer per window, then says how many it left out', () => {
    let now = 0;
    const limiter = new PeerLogLimiter(2, 1000, () => now);
    const first = Array.from({ length: 5 }, () => limiter.allow('10.0.0.1').log);
    expect(first).toEqual([true, true, false, false, false]);
    expect(limiter.allow('10.0.0.2').log).toBe(true);
    now = 1000;
    expect(limiter.allow('10.0.0.1')).toEqual({ log: true, suppressed: 3 });
    expect(limiter.allow('10.0.0.1')).toEqual({ log: true, suppressed: 0 });
  });
});
