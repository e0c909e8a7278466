import { describe, expect, it } from 'vitest';
import { ProtocolError } from '@sightline/shared/validation';
import type { Detected } from '../../../src/frames/pending-frame.ts';
import { detectionsReply, errorReply } from '../../../src/frames/replies.ts';

const detected: Detected = {
  model: 'm',
  runner: 'local',
  queueMs: 1.12345,
  result: {
    width: 640,
    height: 480,
    detections: [{ label: 'dog', classId: 18, score: 0.9, box: [1, 2, 3, 4] }],
    decoder: 'turbo',
    stages: { decodeMs: 2.00049, preprocessMs: 0.5, inferenceMs: 6.4444, postprocessMs: 0.3 },
  },
};

describe('detections reply', () => {
  it('echoes id and ts, reports the wait from receipt to its run as queueMs, and rounds every stage to the microsecond', () => {
    const receivedAt = performance.now() - 20;
    const reply = detectionsReply({ id: 7, ts: 1520.5 }, detected, receivedAt);
    expect(reply).toMatchObject({
      type: 'detections',
      id: 7,
      ts: 1520.5,
      model: 'm',
      width: 640,
      height: 480,
      detections: detected.result.detections,
    });
    expect(reply.timings).toMatchObject({ queueMs: 1.123, decodeMs: 2, preprocessMs: 0.5, inferenceMs: 6.444, postprocessMs: 0.3 });
    expect(reply.timings.serverMs).toBeGreaterThanOrEqual(20);
  });

  it('answers an HTTP body without id or ts with zeros', () => {
    const reply = detectionsReply({}, detected, performance.now());
    expect([reply.id, reply.ts, reply.timings.queueMs]).toEqual([0, 0, 1.123]);
  });
});

describe('error reply', () => {
  it("passes a ProtocolError through, keeping the caller's id over the error's own", () => {
    expect(errorReply(new ProtocolError('bad_image', 'not an image', 3))).toEqual({
      reply: { type: 'error', id: 3, code: 'bad_image', message: 'not an image' },
    });
    expect(errorReply(new ProtocolError('bad_image', 'not an image', 3), 9).reply.id).toBe(9);
    expect(errorReply(new ProtocolError('bad_message', 'not JSON')).reply).not.toHaveProperty('id');
  });

  it('reports anything else as internal without its details, and hands the fault back for the log', () => {
    const fault = new Error('secret path /srv/models');
    const { reply, fault: logged } = errorReply(fault, 4);
    expect(reply).toEqual({ type: 'error', id: 4, code: 'internal', message: 'internal error while processing the frame' });
    expect(logged).toBe(fault);
  });
});
