/**
 * One track against one line: the side it was last seen on, with hysteresis. The side changes only when the anchor
 * is at least `band` beyond the line (normalised distance), and the change is a crossing only if the step from the
 * last point seen on the old side to the new point crosses the segment itself (not the infinite line: passing
 * round an end is no crossing). A track never seen clear of the band has no side and cannot cross.
 */
import { signedDistance, stepCrossesSegment, type Segment } from './geometry.ts';
import type { Direction, NormalisedPoint } from './types.ts';

export interface LineState {
  /** The side the track was last seen on clear of the band (the issue's `side()`), 0 before that. */
  side: -1 | 0 | 1;
  /** The latest point strictly on `side` (in the band or beyond): where a crossing starts from. */
  from: NormalisedPoint | undefined;
  /** A crossing made while the track was too young to count, waiting for it to be old enough (rule-engine.ts). */
  pending?: Direction | undefined;
}

export const newLineState = (): LineState => ({ side: 0, from: undefined });

/** Moves the state to the anchor `p`; the direction of the crossing it makes, if it makes one. */
export function observeLine(state: LineState, line: Segment, band: number, p: NormalisedPoint): Direction | undefined {
  const d = signedDistance(line, p);
  const s = d > 0 ? 1 : d < 0 ? -1 : 0;
  if (s !== 0 && s === state.side) {
    state.from = p;
    return undefined;
  }
  if (s === 0 || Math.abs(d) < band) return undefined; // on the line or in the band: nothing is decided there
  const previous = state.side;
  const crossed = previous !== 0 && state.from !== undefined && stepCrossesSegment(line, state.from, p);
  state.side = s;
  state.from = p;
  if (!crossed) return undefined;
  return previous < 0 ? 'in' : 'out';
}
