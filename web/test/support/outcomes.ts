import type { FrameOutcome, RouteResult, SentFrame } from '../../src/frame-routes/frame-outcome.ts';

/** A frame handed to this device at `sentAt`. */
export function deviceFrame(id: number, sentAt: number, overrides: Partial<SentFrame> = {}): SentFrame {
  return { id, path: 'device', model: 'ssd', threshold: 0.5, sentAt, skippedBefore: 0, capturedAt: sentAt, ...overrides };
}

/** What this device found: one dog, its stages with `inferenceMs`. */
export function deviceResult(inferenceMs = 30, overrides: Partial<RouteResult> = {}): RouteResult {
  return {
    model: 'ssd',
    width: 400,
    height: 300,
    detections: [{ label: 'dog', classId: 18, score: 0.9, box: [0, 0, 10, 10] }],
    stages: { decodeMs: 2, preprocessMs: 1, inferenceMs, postprocessMs: 1 },
    ...overrides,
  };
}

/** A frame of any route settled with an error (`code`, in words `message`) at `answeredAt`. */
export function errorOutcome(frame: SentFrame, answeredAt: number, code = 'overloaded', message = `${code}!`): FrameOutcome {
  return { frame, kind: 'error', answeredAt, reason: code, message };
}
