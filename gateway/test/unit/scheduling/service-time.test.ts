import { describe, expect, it } from 'vitest';
import { ServiceTime } from '../../../src/scheduling/service-time.ts';

describe('service time', () => {
  it('predicts no wait before any frame has finished', () => {
    expect(new ServiceTime().meanMs).toBe(0);
  });

  it('takes the first frame as it is, then moves 1/8 of the way towards each new one', () => {
    const service = new ServiceTime();
    service.record(80);
    expect(service.meanMs).toBe(80);
    service.record(0);
    expect(service.meanMs).toBe(70);
    service.record(150);
    expect(service.meanMs).toBe(80);
  });

  it('lets one outlier move it by an eighth only, and forgets it over the frames that follow', () => {
    const service = new ServiceTime();
    service.record(10);
    service.record(1010);
    expect(service.meanMs).toBe(135);
    for (let i = 0; i < 40; i++) service.record(10);
    expect(service.meanMs).toBeLessThan(11); // 125 ms above, less 1/8 per frame: 0.6 ms above after 40
  });

  it('ignores what is not a duration (negative, NaN), so one bad clock reading cannot poison the prediction', () => {
    const service = new ServiceTime();
    service.record(-5);
    service.record(Number.NaN);
    expect(service.meanMs).toBe(0);
    service.record(40);
    service.record(Number.NaN);
    service.record(-1);
    expect(service.meanMs).toBe(40);
  });
});
