import { describe, expect, it } from 'vitest';
import type { DetectionsMessage } from '@sightline/shared/protocol';
import { Signal } from '../../../src/events/signal.ts';
import type { ConnectionStatus } from '../../../src/transport/gateway-socket.ts';
import { RtpFrameLog } from '../../../src/webrtc/rtp-frame-log.ts';
import { NOT_DETECTED, TrackRoute, type TrackOutcome } from '../../../src/webrtc/track-route.ts';
import { detectionsMessage } from '../../support/gateway-messages.ts';

function setup() {
  const link = {
    statusChanged: new Signal<ConnectionStatus>(),
    detections: new Signal<{ message: DetectionsMessage; bytes: number; receivedAt: number }>(),
    encodedFrames: new Signal<{ rtpTimestamp: number; sentAt: number; bytes: number; key: boolean }>(),
  };
  let id = 100;
  let now = 0;
  const route = new TrackRoute(link, {
    log: new RtpFrameLog(),
    nextId: () => ++id,
    codec: () => 'vp8',
    model: () => 'ssd',
    threshold: () => 0.5,
    now: () => now,
  });
  const settled: TrackOutcome[] = [];
  route.settled.subscribe((outcome) => settled.push(outcome));
  const sendFrame = (rtpTimestamp: number, sentAt: number, bytes = 1000) =>
    link.encodedFrames.emit({ rtpTimestamp, sentAt, bytes, key: false });
  const detect = (rtpTimestamp: number | undefined, receivedAt: number) =>
    link.detections.emit({
      message: detectionsMessage(1, {
        ...(rtpTimestamp === undefined ? {} : { rtpTimestamp }),
        detections: [{ label: 'dog', classId: 18, score: 0.9, box: [1, 2, 3, 4] }],
        timings: { queueMs: 1, decodeMs: 9, preprocessMs: 1, inferenceMs: 30, postprocessMs: 1, serverMs: 50 },
      }),
      bytes: 321,
      receivedAt,
    });
  return { link, route, settled, sendFrame, detect, setNow: (ms: number) => (now = ms) };
}

describe('TrackRoute', () => {
  it('settles the frame a detection names with its send and capture time, size and the answer, like a WebSocket frame', () => {
    const h = setup();
    h.sendFrame(90_000, 1000, 4321);
    h.detect(90_000, 1120);
    expect(h.settled).toHaveLength(1);
    const [outcome] = h.settled;
    expect(outcome).toMatchObject({
      kind: 'ok',
      answeredAt: 1120,
      bytesDown: 321,
      frame: { id: 101, path: 'gateway', transport: 'webrtc', codec: 'vp8', sentAt: 1000, bytesUp: 4321, model: 'ssd', threshold: 0.5 },
      result: { model: 'ssd', serverMs: 50, queueMs: 1, stages: { decodeMs: 9, inferenceMs: 30 } },
    });
    expect(outcome!.frame.capturedAt).toBeLessThanOrEqual(1000);
  });

  it('settles the frames no detection named as dropped once a later one is named, and what waits as lost when the connection ends', () => {
    const h = setup();
    for (let i = 0; i < 4; i++) h.sendFrame(90_000 + i * 6000, 1000 + i * 66);
    h.detect(90_000 + 2 * 6000, 1400);
    expect(h.settled.map((outcome) => [outcome.kind, outcome.frame.sentAt])).toEqual([
      ['dropped', 1000],
      ['dropped', 1066],
      ['ok', 1132],
    ]);
    expect(h.settled[0]).toMatchObject({ reason: NOT_DETECTED });
    h.setNow(2000);
    h.link.statusChanged.emit({ state: 'reconnecting', attempt: 1 });
    expect(h.settled.at(-1)).toMatchObject({ kind: 'lost', reason: 'no_answer', answeredAt: 2000, frame: { sentAt: 1198 } });
  });

  it("matches a detection that overtook its frame's report once the report comes", () => {
    const h = setup();
    h.sendFrame(90_000, 1000);
    h.detect(96_000, 1300);
    expect(h.settled).toHaveLength(0);
    h.sendFrame(96_000, 1066);
    expect(h.settled.map((outcome) => [outcome.kind, outcome.frame.sentAt, outcome.answeredAt])).toEqual([
      ['dropped', 1000, 1300],
      ['ok', 1066, 1300],
    ]);
    expect([h.route.overtaken, h.route.unmatched]).toEqual([1, 0]);
  });

  it('counts detections that name no frame it sent, and gives up frames after the answer timeout', () => {
    const h = setup();
    h.detect(123, 10);
    h.detect(undefined, 11);
    expect(h.route.unmatched).toBe(1);
    h.sendFrame(90_000, 1000);
    h.setNow(7000);
    h.route.expire(5000);
    expect(h.settled).toMatchObject([{ kind: 'lost', frame: { sentAt: 1000 } }]);
    // The detection that named 123 waited for a report that never came.
    expect(h.route.unmatched).toBe(2);
  });

  it('takes no frames from the stream loop: the camera goes on the track by itself', () => {
    const { route } = setup();
    expect([route.available, route.canSend(), route.inFlight, route.send()]).toEqual([false, false, 0, undefined]);
  });
});
