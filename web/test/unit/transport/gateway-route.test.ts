import { describe, expect, it } from 'vitest';
import type { DetectionsMessage } from '@sightline/shared/protocol';
import type { FrameOutcome } from '../../../src/frame-routes/frame-outcome.ts';
import { ANSWER_TIMEOUT_MS, FrameSender } from '../../../src/transport/frame-sender.ts';
import { Signal } from '../../../src/events/signal.ts';
import { GatewayRoute } from '../../../src/transport/gateway-route.ts';
import { FakeLink } from '../../support/fake-link.ts';
import { detectionsMessage } from '../../support/gateway-messages.ts';

function setup() {
  let now = 1000;
  let id = 0;
  const link = new FakeLink();
  const sender = new FrameSender({ send: () => link.isOpen, nextId: () => ++id, now: () => now, maxInFlight: 4 });
  const route = new GatewayRoute(link, sender);
  const settled: FrameOutcome[] = [];
  let changes = 0;
  route.settled.subscribe((outcome) => settled.push(outcome));
  route.changed.subscribe(() => changes++);
  const send = () => route.send(new Uint8Array(8), { model: 'ssd', threshold: 0.5, skippedBefore: 2, capturedAt: now })!;
  return { link, sender, route, settled, changes: () => changes, send, tick: (ms: number) => (now += ms), now: () => now };
}

const detections = (id: number): DetectionsMessage =>
  detectionsMessage(id, {
    detections: [{ label: 'dog', classId: 18, score: 0.9, box: [0, 0, 10, 10] }],
    timings: { queueMs: 1, decodeMs: 2, preprocessMs: 3, inferenceMs: 10, postprocessMs: 1, serverMs: 20 },
  });

describe('GatewayRoute', () => {
  it('is available while the socket is open and greeted, and says when that changes', () => {
    const h = setup();
    expect(h.route.available).toBe(false);
    h.link.open();
    expect(h.route.available).toBe(true);
    h.link.drop();
    expect(h.route.available).toBe(false);
    expect(h.changes()).toBe(2);
  });

  it('settles a frame with its answer: the result with the stages, the server time and the queue; its place is free again', () => {
    const h = setup();
    h.link.open();
    const frame = h.send();
    expect(frame).toMatchObject({ path: 'gateway', model: 'ssd', threshold: 0.5, skippedBefore: 2, codec: 'msgpack' });
    expect(h.route.inFlight).toBe(1);
    h.tick(40);
    h.link.receive(detections(frame.id), h.now(), 300);
    expect(h.settled).toEqual([
      {
        frame,
        kind: 'ok',
        answeredAt: 1040,
        bytesDown: 300,
        result: {
          model: 'ssd',
          width: 320,
          height: 240,
          detections: detections(frame.id).detections,
          stages: { decodeMs: 2, preprocessMs: 3, inferenceMs: 10, postprocessMs: 1 },
          serverMs: 20,
          queueMs: 1,
        },
      },
    ]);
    expect(h.route.inFlight).toBe(0);
  });

  it('settles drops and errors with their reason; an error or late answer about no frame of its own settles nothing', () => {
    const h = setup();
    h.link.open();
    const dropped = h.send();
    const refused = h.send();
    h.link.receive({ type: 'dropped', id: dropped.id, reason: 'superseded' });
    h.link.receive({ type: 'error', id: refused.id, code: 'overloaded', message: 'busy' });
    h.link.receive({ type: 'error', id: 999, code: 'bad_message', message: 'about a ping' });
    h.link.receive(detections(dropped.id));
    h.link.receive({ type: 'pong', id: 5, ts: 0, serverTs: 0 });
    expect(h.settled).toMatchObject([
      { kind: 'dropped', reason: 'superseded', frame: { id: dropped.id } },
      { kind: 'error', reason: 'overloaded', message: 'busy', frame: { id: refused.id } },
    ]);
  });

  it('loses every frame out on a connection that ends, before saying the socket changed', () => {
    const h = setup();
    h.link.open();
    h.send();
    h.send();
    const order: string[] = [];
    h.route.settled.subscribe((outcome) => order.push(outcome.kind));
    h.route.changed.subscribe(() => order.push('changed'));
    h.link.drop();
    expect(order).toEqual(['lost', 'lost', 'changed']);
    expect(h.settled.map((outcome) => outcome.kind === 'lost' && outcome.reason)).toEqual(['no_answer', 'no_answer']);
    expect(h.settled.every((outcome) => outcome.notice === undefined)).toBe(true);
    expect(h.route.inFlight).toBe(0);
  });

  it('gives up on overdue frames when the watchdog says so, each with the same notice', () => {
    const h = setup();
    h.link.open();
    h.send();
    h.tick(1000);
    const recent = h.send();
    h.tick(ANSWER_TIMEOUT_MS - 500);
    h.route.expire(ANSWER_TIMEOUT_MS);
    expect(h.settled).toMatchObject([{ kind: 'lost', notice: { code: 'no_answer', message: expect.stringMatching(/within 5 s/) } }]);
    expect(h.route.inFlight).toBe(1);
    expect(h.sender.isPending(recent.id)).toBe(true);
  });

  it("passes the gateway's keyframe requests to the sender's video stream, and says how the next frame must be encoded", () => {
    const h = setup();
    h.link.open();
    h.sender.setPolicy({ codec: 'vp8', abMode: false, abEvery: 30 });
    expect(h.route.nextFormat()).toEqual({ kind: 'video', codec: 'vp8', keyFrame: true });
    h.route.send(new Uint8Array([1]), {
      model: 'ssd',
      threshold: 0.5,
      skippedBefore: 0,
      capturedAt: 0,
      video: { codec: 'vp8', key: true, seq: 1, width: 4, height: 4 },
    });
    expect(h.route.nextFormat()).toMatchObject({ keyFrame: false });
    h.link.receive({ type: 'keyframe', reason: 'the decoder restarted' });
    expect(h.route.nextFormat()).toMatchObject({ keyFrame: true });
  });

  it("sends nothing while the link has no room (a data channel's buffer), and wakes the loop when it has again", () => {
    const h = setup();
    let room = false;
    const roomChanged = new Signal<void>();
    const link = Object.assign(h.link, { hasRoom: () => room, roomChanged });
    const route = new GatewayRoute(link, h.sender);
    let changes = 0;
    route.changed.subscribe(() => changes++);
    h.link.open();
    expect(route.canSend()).toBe(false);
    expect(route.send(new Uint8Array(8), { model: 'ssd', threshold: 0.5, skippedBefore: 0, capturedAt: 0 })).toBeUndefined();
    room = true;
    roomChanged.emit();
    expect(changes).toBe(2);
    expect(route.canSend()).toBe(true);
  });
});
