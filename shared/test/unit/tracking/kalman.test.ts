import { describe, expect, it } from 'vitest';
import { ConstantVelocityKalman } from '../../../src/tracking/kalman.ts';

describe('ConstantVelocityKalman', () => {
  const q = [1, 1];
  const r = [4, 4];

  it('learns a constant velocity from positions and extrapolates it', () => {
    const filter = new ConstantVelocityKalman([0, 100], [4, 4], [10_000, 10_000]);
    // x moves at +50 px/s, y at -20 px/s, sampled at 25 Hz.
    for (let k = 1; k <= 50; k++) {
      filter.predict(0.04, q);
      filter.update([50 * k * 0.04, 100 - 20 * k * 0.04], r);
    }
    expect(filter.velocity(0)).toBeCloseTo(50, 0);
    expect(filter.velocity(1)).toBeCloseTo(-20, 0);
    expect(filter.extrapolate(0, 0.5)).toBeCloseTo(100 + 25, 0);
    expect(filter.extrapolate(1, 0.5)).toBeCloseTo(60 - 10, 0);
  });

  it('reaches the same estimate from irregular intervals (time, not frames)', () => {
    const filter = new ConstantVelocityKalman([0], [4], [10_000]);
    const intervals = [0.02, 0.11, 0.035, 0.09, 0.2, 0.015, 0.06, 0.04, 0.13, 0.05];
    let t = 0;
    for (let k = 0; k < 40; k++) {
      const dt = intervals[k % intervals.length]!;
      t += dt;
      filter.predict(dt, [1]);
      filter.update([80 * t], [4]);
    }
    expect(filter.velocity(0)).toBeCloseTo(80, 0);
    expect(filter.position(0)).toBeCloseTo(80 * t, 0);
  });

  it('grows its uncertainty with the time predicted, and shrinks it with a measurement', () => {
    const filter = new ConstantVelocityKalman([10], [4], [100]);
    filter.predict(0.1, [50]);
    const shortGap = filter.positionVariance(0);
    filter.predict(0.4, [50]);
    expect(filter.positionVariance(0)).toBeGreaterThan(shortGap);
    expect(filter.velocityVariance(0)).toBeCloseTo(100 + 50 * 0.5, 9);
    const before = filter.positionVariance(0);
    filter.update([10], [4]);
    expect(filter.positionVariance(0)).toBeLessThan(Math.min(before, 4));
  });

  it('predicting over no time changes nothing, and extrapolating leaves the state alone', () => {
    const filter = new ConstantVelocityKalman([3, 4], [1, 1], [1, 1]);
    filter.predict(0, [100, 100]);
    expect(filter.positionVariance(0)).toBe(1);
    filter.extrapolate(0, 10);
    expect(filter.position(0)).toBe(3);
  });

  it('weighs a measurement by its variance against the prediction', () => {
    const trusted = new ConstantVelocityKalman([0], [100], [1]);
    trusted.update([10], [1]);
    const doubted = new ConstantVelocityKalman([0], [100], [1]);
    doubted.update([10], [10_000]);
    expect(trusted.position(0)).toBeCloseTo((10 * 100) / 101, 9);
    expect(doubted.position(0)).toBeCloseTo((10 * 100) / 10_100, 9);
  });
});
