/**
 * A constant-velocity Kalman filter in continuous time, one independent position/velocity pair per axis.
 *
 * The box is four axes (centre x, centre y, width, height). With a measurement of positions only and
 * noise that is diagonal across axes, the 8-state filter of SORT/ByteTrack splits exactly into four
 * 2-state filters, so each axis keeps its own 2x2 covariance (three numbers): the same estimates for a
 * fraction of the arithmetic, on the tracker's hot path.
 *
 * Time is in seconds here (the tracker converts from its millisecond timestamps) so the noise figures
 * read naturally: velocities in pixels per second. The process noise is white acceleration
 * (the "continuous white noise acceleration" model): over an interval dt the velocity's variance grows
 * by q·dt, so sqrt(q) is the standard deviation of the change of velocity over one second. That makes
 * the filter correct for irregular intervals and dropped frames, where a per-frame noise would not be.
 */

/** Per axis: position, velocity, and the covariance [var(p), cov(p, v), var(v)]. */
const STRIDE = 5;
const P = 0;
const V = 1;
const PP = 2;
const PV = 3;
const VV = 4;

export class ConstantVelocityKalman {
  readonly axes: number;
  /** Axis a at a*STRIDE: p, v, var(p), cov(p,v), var(v). */
  private readonly s: Float64Array;

  /**
   * @param positions the first measurement, one value per axis
   * @param positionVariances its variance per axis
   * @param velocityVariances the prior variance of each axis's velocity (it starts at 0)
   */
  constructor(positions: ArrayLike<number>, positionVariances: ArrayLike<number>, velocityVariances: ArrayLike<number>) {
    this.axes = positions.length;
    this.s = new Float64Array(this.axes * STRIDE);
    for (let a = 0; a < this.axes; a++) {
      const o = a * STRIDE;
      this.s[o + P] = positions[a]!;
      this.s[o + PP] = positionVariances[a]!;
      this.s[o + VV] = velocityVariances[a]!;
    }
  }

  position(axis: number): number {
    return this.s[axis * STRIDE + P]!;
  }

  velocity(axis: number): number {
    return this.s[axis * STRIDE + V]!;
  }

  positionVariance(axis: number): number {
    return this.s[axis * STRIDE + PP]!;
  }

  velocityVariance(axis: number): number {
    return this.s[axis * STRIDE + VV]!;
  }

  /** Where the axis will be after `dt` seconds if its velocity holds; the filter is unchanged. */
  extrapolate(axis: number, dt: number): number {
    const o = axis * STRIDE;
    return this.s[o + P]! + this.s[o + V]! * dt;
  }

  /**
   * Moves the state `dt` seconds on. `accelerationDensity[a]` is q of axis a (pixels² per second³):
   * the variance its velocity gains per second.
   */
  predict(dt: number, accelerationDensity: ArrayLike<number>): void {
    if (dt === 0) return;
    const s = this.s;
    const dt2 = dt * dt;
    for (let a = 0; a < this.axes; a++) {
      const o = a * STRIDE;
      const q = accelerationDensity[a]!;
      const pp = s[o + PP]!;
      const pv = s[o + PV]!;
      const vv = s[o + VV]!;
      s[o + P] = s[o + P]! + s[o + V]! * dt;
      s[o + PP] = pp + 2 * dt * pv + dt2 * vv + (q * dt2 * dt) / 3;
      s[o + PV] = pv + dt * vv + (q * dt2) / 2;
      s[o + VV] = vv + q * dt;
    }
  }

  /** Corrects the state with a measurement of every axis's position, of variance `measurementVariance[a]`. */
  update(measurement: ArrayLike<number>, measurementVariance: ArrayLike<number>): void {
    const s = this.s;
    for (let a = 0; a < this.axes; a++) {
      const o = a * STRIDE;
      const pp = s[o + PP]!;
      const pv = s[o + PV]!;
      const innovationVariance = pp + measurementVariance[a]!;
      const gainP = pp / innovationVariance;
      const gainV = pv / innovationVariance;
      const innovation = measurement[a]! - s[o + P]!;
      s[o + P] = s[o + P]! + gainP * innovation;
      s[o + V] = s[o + V]! + gainV * innovation;
      s[o + PP] = (1 - gainP) * pp;
      s[o + PV] = (1 - gainP) * pv;
      s[o + VV] = s[o + VV]! - gainV * pv;
    }
  }
}
