import { describe, expect, it } from 'vitest';
import { Pacer } from '../../../fuzz/run-fuzz.ts';

describe('fuzz runner pacing', () => {
  it('spaces messages to stay under a rate, without delaying the first', async () => {
    const pacer = new Pacer(200); // 5 ms apart
    const started = performance.now();
    await pacer.wait();
    expect(performance.now() - started).toBeLessThan(4);
    for (let i = 0; i < 20; i++) await pacer.wait();
    // 20 more messages at 200/s take at least 100 ms.
    expect(performance.now() - started).toBeGreaterThanOrEqual(95);
  });
});
