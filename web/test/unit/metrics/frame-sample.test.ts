import { describe, expect, it } from 'vitest';
import { sampleFromOutcome } from '../../../src/metrics/frame-sample.ts';
import { deviceFrame, deviceResult } from '../../support/outcomes.ts';

describe('sampleFromOutcome', () => {
  it('derives full, server and network+queue times from a frame the gateway answered', () => {
    const s = sampleFromOutcome(
      {
        frame: {
          id: 7,
          path: 'gateway',
          codec: 'json',
          transport: 'webrtc',
          sentAt: 1000,
          bytesUp: 1234,
          encodeMs: 0.5,
          model: undefined,
          threshold: 0.5,
          skippedBefore: 3,
          capturedAt: 990,
        },
        kind: 'ok',
        answeredAt: 1042.5,
        bytesDown: 321,
        result: {
          model: 'ssd',
          width: 320,
          height: 240,
          detections: [{ label: 'dog', classId: 18, score: 0.9, box: [1, 2, 3, 4] }],
          stages: { decodeMs: 2, preprocessMs: 3, inferenceMs: 20, postprocessMs: 1 },
          serverMs: 30,
          queueMs: 1,
        },
      },
      1_700_000_000_000,
    );
    expect(s).toMatchObject({
      id: 7,
      path: 'gateway',
      codec: 'json',
      transport: 'webrtc',
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
      reason: null,
      skippedBefore: 3,
    });
  });

  it('keeps the reason of a frame that was not answered with detections', () => {
    const frame = {
      id: 8,
      path: 'gateway' as const,
      codec: 'msgpack' as const,
      sentAt: 0,
      bytesUp: 10,
      model: 'ssd',
      threshold: 0.5,
      skippedBefore: 0,
      capturedAt: 0,
    };
    expect(
      sampleFromOutcome({ frame, kind: 'error', answeredAt: 5, bytesDown: 40, reason: 'overloaded', message: 'busy' }, 0),
    ).toMatchObject({
      outcome: 'error',
      reason: 'overloaded',
      serverMs: null,
      inferenceMs: null,
      networkQueueMs: null,
      model: 'ssd',
      bytesDown: 40,
      detections: 0,
    });
    expect(sampleFromOutcome({ frame, kind: 'dropped', answeredAt: 5, reason: 'superseded' }, 0).reason).toBe('superseded');
  });

  it('records a frame computed on this device: its route, no codec, no bytes on the wire, no gateway time', () => {
    const frame = deviceFrame(9, 2000, { skippedBefore: 1 });
    const ok = sampleFromOutcome(
      { frame, kind: 'ok', answeredAt: 2036, result: deviceResult(31.25, { detections: [] }) },
      1_700_000_000_000,
    );
    expect(ok).toEqual({
      id: 9,
      path: 'device',
      codec: null,
      transport: null,
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
      link: null,
    });
    const lost = sampleFromOutcome({ frame, kind: 'lost', answeredAt: 7000, reason: 'no_answer', message: 'no result in time' }, 0);
    expect(lost).toMatchObject({ outcome: 'lost', reason: 'no_answer', inferenceMs: null });
    expect(sampleFromOutcome({ frame, kind: 'error', answeredAt: 2010, reason: 'on_device_error', message: 'x' }, 0).reason).toBe(
      'on_device_error',
    );
  });
});
