/**
 * What the overlay draws: every track predicted to the moment the frame on screen was taken, or the
 * latest answer's boxes as they came (which lag moving objects by the latency).
 */

export const BOX_MODES = ['predicted', 'raw'] as const;
export type BoxMode = (typeof BOX_MODES)[number];

export const BOX_MODE_LABELS: Readonly<Record<BoxMode, string>> = { predicted: 'Predicted', raw: 'Raw' };

export const BOX_MODE_HINTS: Readonly<Record<BoxMode, string>> = {
  predicted: 'Each track moved on to the moment the frame on screen was taken: boxes stay on moving objects.',
  raw: 'The latest answer’s boxes as they came: they lag moving objects by the time shown.',
};
