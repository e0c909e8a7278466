import { describe, expect, it } from 'vitest';
import { sampleFromOutcome } from '../../../src/metrics/frame-sample.ts';

describe('sampleFromOutcome', () => {
  it('derives full, server and network+queue times from a detections answer', () => {
    const s = sampleFromOutcome(
      {
        frame: { id: 7, codec: 'json', sentAt: 1000, bytesUp: 1234, encodeMs: 0.5, model: undefined, threshold: 0.5, skippedBefore: 3 },
        kind: 'ok',
        answeredAt: 1042.5,
        bytesDown: 321,
        answer: {
          type: 'detections',
          id: 7,
          ts: 1000,
          model: 'ssd',
          width: 320,
          height: 240,
          detections: [{ label: 'dog', classId: 18, score: 0.9, box: [1, 2, 3, 4] }],
          timings: { queueMs: 1, decodeMs: 2, preprocessMs: 3, inferenceMs: 20, postprocessMs: 1, serverMs: 30 },
        },
      },
      1_700_000_000_000,
    );
    expect(s).toMatchObject({
      id: 7,
      codec: 'json',
      model: 'ssd',
      sentAt: 1_700_000_001_000,
      fullMs: 42.5,
      serverMs: 30,
      inferenceMs: 20,
      networkQueueMs: 12.5,
      bytesUp: 1234,
      bytesDown: 321,
      outcome: 'ok',
      detections: 1,
      skippedBefore: 3,
    });
  });
});
