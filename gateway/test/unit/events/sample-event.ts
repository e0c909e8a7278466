/** Events as the rule runner makes them, for the tests of what stores, streams and delivers them. */
import type { DetectionEvent } from '@sightline/shared/events';

let made = 0;

/** A person crossing the `door` line of camera `gate` (`in`), each with its own id, track and capture time; `over` changes any field. */
export function detectionEvent(over: Partial<DetectionEvent> = {}): DetectionEvent {
  made += 1;
  return {
    id: `event-${made}`,
    camera: 'gate',
    rule: 'door',
    type: 'line_cross',
    direction: 'in',
    trackId: made,
    label: 'person',
    score: 0.9,
    box: [1, 2, 3, 4],
    capturedAt: made * 40,
    detectedAt: Date.now(),
    ...over,
  };
}
