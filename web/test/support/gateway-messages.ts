import { PROTOCOL_VERSION, type DetectionsMessage, type HelloMessage } from '@sightline/shared/protocol';

/** The greeting of a gateway serving one model, `ssd`, that a faked socket sends on open. */
export const hello: HelloMessage = {
  type: 'hello',
  protocol: PROTOCOL_VERSION,
  defaultModel: 'ssd',
  models: ['ssd'],
  limits: { maxMessageBytes: 1, maxPixels: 1, maxInFlight: 2, queueLength: 2 },
};

/**
 * The answer to frame `id` from model `ssd` on a 320x240 frame. Each test gives the detections and timings
 * (and anything else) it asserts on, so the figures stand next to the expectations that read them.
 */
export function detectionsMessage(
  id: number,
  answer: Pick<DetectionsMessage, 'detections' | 'timings'> & Partial<DetectionsMessage>,
): DetectionsMessage {
  return { type: 'detections', id, ts: 0, model: 'ssd', width: 320, height: 240, ...answer };
}
