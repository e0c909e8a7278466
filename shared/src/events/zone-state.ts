/**
 * One track against one zone, with hysteresis: inside once its anchor is at least `band` inside the polygon's edge
 * (normalised distance), outside once it is at least `band` outside; in between it stays what it was. A track first
 * seen inside the zone enters it then (it appeared there: the stream started, or it came out of a door).
 */
import { signedPolygonDistance } from './geometry.ts';
import type { NormalisedPoint } from './types.ts';

/** undefined: not yet seen clear of the zone's edge. */
export type ZoneState = 'inside' | 'outside' | undefined;

export type ZoneChange = 'enter' | 'leave';

/** The new state for the anchor `p`, and the change it makes, if any. */
export function observeZone(
  state: ZoneState,
  polygon: readonly NormalisedPoint[],
  band: number,
  p: NormalisedPoint,
): { state: ZoneState; change?: ZoneChange } {
  const d = signedPolygonDistance(p, polygon);
  if (d >= band && d > 0) return state === 'inside' ? { state } : { state: 'inside', change: 'enter' };
  if (d <= -band && d < 0) return state === 'inside' ? { state: 'outside', change: 'leave' } : { state: 'outside' };
  return { state };
}
