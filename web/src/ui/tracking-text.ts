/** The tracking panel's words: how far the boxes are moved on, or how far they lag. */
import type { BoxMode } from '../tracking/box-mode.ts';

/** "Predicted 142 ms ahead" / "Raw boxes 142 ms behind"; a dash before the first frame is drawn. */
export function leadText(mode: BoxMode, leadMs: number | undefined): string {
  if (leadMs === undefined || !Number.isFinite(leadMs)) return '–';
  const ms = `${Math.round(Math.abs(leadMs))} ms`;
  if (mode === 'raw') return leadMs >= 0 ? `${ms} behind` : `${ms} ahead`;
  return leadMs >= 0 ? `${ms} ahead` : `${ms} back`;
}

/** What the lead figure means, for its label. */
export function leadLabel(mode: BoxMode): string {
  return mode === 'predicted' ? 'Boxes predicted' : 'Raw boxes lag';
}
