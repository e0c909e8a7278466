import { describe, expect, it } from 'vitest';
import type { DetectionsMessage } from '@sightline/shared/protocol';
import { AnswerRecorder } from '../../../src/app/answer-recorder.ts';
import type { LatestResult } from '../../../src/app/dashboard-snapshot.ts';
import { EventLog } from '../../../src/app/event-log.ts';
import { SampleStore } from '../../../src/metrics/sample-store.ts';
import type { FrameOutcome } from '../../../src/frame-routes/frame-outcome.ts';
import { FrameSender } from '../../../src/transport/frame-sender.ts';
import { deviceFrame, deviceResult } from '../../support/outcomes.ts';
import { detectionsMessage } from '../../support/gateway-messages.ts';

function setup() {
  let now = 1000;
  let id = 0;
  const sender = new FrameSender({ send: () => true, nextId: () => ++id, now: () => now, maxInFlight: 8 });
  const samples = new SampleStore();
  const errorLog = new EventLog();
  const noticeLog = new EventLog();
  const answers = new AnswerRecorder({
    samples,
    errorLog,
    noticeLog,
    timeOrigin: 1_700_000_000_000,
    wallClock: () => 42,
    linkOf: (outcome) => (outcome.frame.path === 'gateway' ? 'lte' : null),
  });
  const latest: (LatestResult | undefined)[] = [];
  answers.changed.subscribe((result) => latest.push(result));
  /** A gateway frame sent now, and its settled outcome once `answer` comes back. */
  const send = () => sender.sendFrame(new Uint8Array(8), { model: 'ssd' })!;
  const answer = (message: DetectionsMessage): FrameOutcome => sender.handleAnswer(message, 300, now)!;
  const tick = (ms: number) => (now += ms);
  return { sender, samples, errorLog, noticeLog, latest, answers, send, answer, tick, now: () => now };
}

const detections = (id: number, labels: string[] = ['dog']): DetectionsMessage =>
  detectionsMessage(id, {
    detections: labels.map((label) => ({ label, classId: 1, score: 0.9, box: [0, 0, 10, 10] })),
    timings: { queueMs: 1, decodeMs: 1, preprocessMs: 1, inferenceMs: 10, postprocessMs: 1, serverMs: 15 },
  });

describe('AnswerRecorder', () => {
  it('turns a gateway frame with detections into a sample and the latest result', () => {
    const h = setup();
    const frame = h.send();
    h.tick(40);
    h.answers.record(h.answer(detections(frame.id)));
    expect(h.samples.all()).toMatchObject([
      { id: frame.id, path: 'gateway', outcome: 'ok', fullMs: 40, bytesDown: 300, detections: 1, link: 'lte' },
    ]);
    expect(h.answers.latest).toMatchObject({
      id: frame.id,
      path: 'gateway',
      codec: frame.codec,
      fullMs: 40,
      serverMs: 15,
      queueMs: 1,
      stages: { inferenceMs: 10 },
      bytesUp: frame.bytesUp,
      bytesDown: 300,
      receivedAt: h.now(),
    });
    expect(h.latest).toEqual([h.answers.latest]);
  });

  it('never goes back in time when answers overtake each other, but records every one', () => {
    const h = setup();
    const first = h.send();
    const second = h.send();
    h.answers.record(h.answer(detections(second.id, ['cat'])));
    h.answers.record(h.answer(detections(first.id, ['dog'])));
    expect(h.answers.latest?.id).toBe(second.id);
    expect(h.latest).toHaveLength(1);
    expect(h.samples.size).toBe(2);
  });

  it("logs the gateway's errors, about a frame or not", () => {
    const h = setup();
    h.answers.gatewayError({ type: 'error', id: 99, code: 'bad_message', message: 'no' });
    expect(h.errorLog.list()).toMatchObject([{ code: 'bad_message', id: 99, lastAt: 42 }]);
    expect(h.samples.size).toBe(0);
  });

  it('records a failed frame as a sample with its reason, and shows nothing new', () => {
    const h = setup();
    const frame = h.send();
    h.answers.record(h.sender.handleAnswer({ type: 'error', id: frame.id, code: 'overloaded', message: 'busy' }, 50, h.now())!);
    expect(h.samples.all()).toMatchObject([{ outcome: 'error', reason: 'overloaded' }]);
    expect(h.answers.latest).toBeUndefined();
    expect(h.noticeLog.list()).toEqual([]);
  });

  it("notes a route's problems, one entry for repeats, with the frame's id", () => {
    const h = setup();
    const notice = { code: 'no_answer', message: 'A frame got no answer within 5 s: counted as lost, the stream goes on.' };
    for (const frame of [h.send(), h.send()]) {
      h.answers.record({ frame, kind: 'lost', answeredAt: h.now(), reason: 'no_answer', notice });
    }
    expect(h.noticeLog.list()).toMatchObject([{ code: 'no_answer', count: 2, id: 2 }]);
    expect(h.samples.all().map((sample) => sample.outcome)).toEqual(['lost', 'lost']);
  });

  it('forgets the latest result for a new source', () => {
    const h = setup();
    const frame = h.send();
    h.answers.record(h.answer(detections(frame.id)));
    h.answers.clearLatest();
    expect(h.answers.latest).toBeUndefined();
    expect(h.latest.at(-1)).toBeUndefined();
  });

  it("records this device's results like the gateway's: a sample, the latest result", () => {
    const h = setup();
    const frame = deviceFrame(50, h.now());
    h.tick(35);
    h.answers.record({ frame, kind: 'ok', answeredAt: h.now(), result: deviceResult(30) });
    expect(h.samples.all()).toMatchObject([{ id: 50, path: 'device', codec: null, fullMs: 35, inferenceMs: 30, serverMs: null }]);
    expect(h.answers.latest).toMatchObject({ id: 50, path: 'device', codec: null, stages: { inferenceMs: 30 }, fullMs: 35, bytesUp: 0 });
    expect(h.answers.latest?.serverMs).toBeUndefined();
    expect(h.latest).toMatchObject([{ width: 400, height: 300, detections: [{ label: 'dog' }] }]);
    const notice = { code: 'on_device_error', message: 'On-device inference failed: bad image' };
    h.answers.record({ frame: deviceFrame(51, h.now()), kind: 'error', answeredAt: h.now(), reason: 'on_device_error', notice });
    expect(h.noticeLog.list()).toMatchObject([notice]);
    expect(h.errorLog.list()).toEqual([]);
    expect(h.samples.all().map((s) => s.outcome)).toEqual(['ok', 'error']);
  });
});
