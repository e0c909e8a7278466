import { describe, expect, it } from 'vitest';
import { sampleFromDeviceOutcome, sampleFromOutcome } from '../../../src/metrics/frame-sample.ts';

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

  it('records a frame computed on this device: its path, no codec, no bytes on the wire, no gateway time', () => {
    const frame = { id: 9, model: 'ssd', sentAt: 2000, bytes: 20_000, threshold: 0.5, skippedBefore: 1 };
    const timings = { decodeMs: 2, preprocessMs: 1, inferenceMs: 31.25, postprocessMs: 0.5 };
    const ok = sampleFromDeviceOutcome(
      {
        frame,
        kind: 'ok',
        answeredAt: 2036,
        result: { type: 'result', id: 9, model: 'ssd', width: 400, height: 300, detections: [], timings },
      },
      1_700_000_000_000,
    );
    expect(ok).toEqual({
      id: 9,
      path: 'device',
      codec: null,
      model: 'ssd',
      sentAt: 1_700_000_002_000,
      sentPerf: 2000,
      answeredPerf: 2036,
      fullMs: 36,
      serverMs: null,
      inferenceMs: 31.25,
      networkQueueMs: null,
      bytesUp: 0,
      bytesDown: 0,
      outcome: 'ok',
      detections: 0,
      reason: null,
      skippedBefore: 1,
    });
    const lost = sampleFromDeviceOutcome({ frame, kind: 'lost', answeredAt: 7000, error: 'no result in time' }, 0);
    expect(lost).toMatchObject({ outcome: 'lost', reason: 'no_answer', inferenceMs: null });
    expect(sampleFromDeviceOutcome({ frame, kind: 'error', answeredAt: 2010, error: 'x' }, 0).reason).toBe('on_device_error');
  });
});
