/**
 * What each camera of an open-loop load got, and how evenly: per camera the frames it sent (its uplink, per
 * second too), how many were refused, detected, held back by `retryAfterMs` or left unanswered; the largest over
 * the smallest detected count across cameras over the whole run and within each window (60 s by default, the
 * issue's "equal shares over 60 s"). Pure: measured frames in, numbers out.
 */
import { UNANSWERED, type FrameMeasurement } from '../client/types.ts';
import { shareRatio } from './load-stats.ts';

export interface CameraFigures {
  camera: number;
  /** Frames that went out (its uplink). */
  sent: number;
  /** Answered `dropped` or `error` (refused on receipt, or later). */
  refused: number;
  detected: number;
  /** Frames never sent: the gateway's last refusal said when to send again (only when the hint is honoured). */
  held: number;
  unanswered: number;
  /** Frames sent per second of the load. */
  sentPerS: number;
  /** Frames refused per second of the load. */
  refusedPerS: number;
}

export interface Spread {
  min: number;
  max: number;
  mean: number;
  /** max / min (Infinity when a camera got none, 1 when none got any). */
  ratio: number;
}

export interface FairnessWindow {
  fromS: number;
  toS: number;
  /** Detected frames per camera within the window. */
  detected: Spread;
}

export interface CameraReport {
  cameras: CameraFigures[];
  /** Over the whole run, across cameras. */
  detected: Spread;
  sent: Spread;
  refused: Spread;
  sentPerS: Spread;
  /** Per window of scheduled send time. */
  windows: FairnessWindow[];
  /** The largest per-window ratio (the worst window). */
  worstWindowRatio: number;
}

export function spread(values: readonly number[]): Spread {
  if (values.length === 0) return { min: Number.NaN, max: Number.NaN, mean: Number.NaN, ratio: Number.NaN };
  return {
    min: Math.min(...values),
    max: Math.max(...values),
    mean: values.reduce((a, b) => a + b, 0) / values.length,
    ratio: shareRatio(values),
  };
}

/**
 * Per camera (`client` index 0..cameras-1) over a load of `durationS`, fairness in windows of `windowS` by
 * scheduled send time (`startMs`); warm-up frames are left out. A last window shorter than half a window is
 * merged into the one before it, so a 90-s run gives one 60-s window and one 30-s one, a 61-s run one of 61 s.
 */
export function cameraFigures(samples: readonly FrameMeasurement[], cameras: number, durationS: number, windowS = 60): CameraReport {
  const measured = samples.filter((s) => !s.warmup);
  const figures: CameraFigures[] = Array.from({ length: cameras }, (_, camera) => ({
    camera,
    sent: 0,
    refused: 0,
    detected: 0,
    held: 0,
    unanswered: 0,
    sentPerS: 0,
    refusedPerS: 0,
  }));
  for (const s of measured) {
    const f = figures[s.client];
    if (!f) continue;
    if (s.outcome === 'held') {
      f.held++;
      continue;
    }
    f.sent++;
    if (s.outcome === 'ok') f.detected++;
    else if (UNANSWERED.has(s.outcome)) f.unanswered++;
    else f.refused++;
  }
  for (const f of figures) {
    f.sentPerS = f.sent / durationS;
    f.refusedPerS = f.refused / durationS;
  }
  const bounds = windowBounds(durationS, windowS);
  const windows = bounds.map(([fromS, toS], w) => {
    const counts = new Array<number>(cameras).fill(0);
    for (const s of measured) {
      if (s.outcome !== 'ok' || counts[s.client] === undefined) continue;
      const at = s.startMs / 1000;
      const inside = at >= fromS && (at < toS || w === bounds.length - 1);
      if (inside) counts[s.client]!++;
    }
    return { fromS, toS, detected: spread(counts) };
  });
  return {
    cameras: figures,
    detected: spread(figures.map((f) => f.detected)),
    sent: spread(figures.map((f) => f.sent)),
    refused: spread(figures.map((f) => f.refused)),
    sentPerS: spread(figures.map((f) => f.sentPerS)),
    windows,
    worstWindowRatio: windows.reduce(
      (worst, w) => (w.detected.ratio > worst || Number.isNaN(worst) ? w.detected.ratio : worst),
      Number.NaN,
    ),
  };
}

/** [from, to) seconds of each window; a short tail (under half a window) joins the window before it. */
export function windowBounds(durationS: number, windowS: number): Array<[number, number]> {
  const bounds: Array<[number, number]> = [];
  for (let from = 0; from < durationS - 1e-9; from += windowS) bounds.push([from, Math.min(durationS, from + windowS)]);
  if (bounds.length > 1) {
    const [from, to] = bounds[bounds.length - 1]!;
    if (to - from < windowS / 2) {
      bounds.pop();
      bounds[bounds.length - 1]![1] = to;
    }
  }
  return bounds.length ? bounds : [[0, durationS]];
}
