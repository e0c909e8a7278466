import { describe, expect, it } from 'vitest';
import type { DetectionsMessage } from '@sightline/shared/protocol';
import { AnswerRecorder } from '../../../src/app/answer-recorder.ts';
import { EventLog } from '../../../src/app/event-log.ts';
import { RejectionBackoff } from '../../../src/app/rejection-backoff.ts';
import { SampleStore } from '../../../src/metrics/sample-store.ts';
import type { OverlayResult } from '../../../src/overlay/draw-boxes.ts';
import { FrameSender } from '../../../src/transport/frame-sender.ts';

function setup() {
  let now = 1000;
  let id = 0;
  const sender = new FrameSender({ send: () => true, nextId: () => ++id, now: () => now, maxInFlight: 8 });
  const samples = new SampleStore();
  const errorLog = new EventLog();
  const noticeLog = new EventLog();
  const backoff = new RejectionBackoff(() => now);
  const shown: (OverlayResult | undefined)[] = [];
  const changes: boolean[] = [];
  const answers = new AnswerRecorder({
    sender,
    samples,
    errorLog,
    noticeLog,
    backoff,
    overlay: () => ({ setResult: (result) => shown.push(result) }),
    onChange: (urgent) => changes.push(urgent),
    timeOrigin: 1_700_000_000_000,
    wallClock: () => 42,
  });
  const send = () => sender.sendFrame(new Uint8Array(8), { model: 'ssd' })!;
  const tick = (ms: number) => (now += ms);
  return { sender, samples, errorLog, noticeLog, backoff, shown, changes, answers, send, tick, now: () => now };
}

const detections = (id: number, labels: string[] = ['dog']): DetectionsMessage => ({
  type: 'detections',
  id,
  ts: 0,
  model: 'ssd',
  width: 320,
  height: 240,
  detections: labels.map((label) => ({ label, classId: 1, score: 0.9, box: [0, 0, 10, 10] })),
  timings: { queueMs: 1, decodeMs: 1, preprocessMs: 1, inferenceMs: 10, postprocessMs: 1, serverMs: 15 },
});

describe('AnswerRecorder', () => {
  it('turns a detections answer into a sample, the latest result and the boxes on the overlay', () => {
    const h = setup();
    const frame = h.send();
    h.tick(40);
    h.answers.answer(detections(frame.id), 300, h.now());
    expect(h.samples.all()).toMatchObject([{ id: frame.id, outcome: 'ok', fullMs: 40, bytesDown: 300, detections: 1 }]);
    expect(h.answers.latest).toMatchObject({
      id: frame.id,
      codec: frame.codec,
      fullMs: 40,
      bytesUp: frame.bytesUp,
      bytesDown: 300,
      receivedAt: h.now(),
    });
    expect(h.shown).toMatchObject([{ width: 320, height: 240, receivedAt: h.now(), detections: [{ label: 'dog' }] }]);
    expect(h.changes.every((urgent) => !urgent)).toBe(true);
  });

  it('never goes back in time when answers overtake each other, but records every one', () => {
    const h = setup();
    const first = h.send();
    const second = h.send();
    h.answers.answer(detections(second.id, ['cat']), 300, h.now());
    h.answers.answer(detections(first.id, ['dog']), 300, h.now());
    expect(h.answers.latest?.id).toBe(second.id);
    expect(h.shown).toHaveLength(1);
    expect(h.samples.size).toBe(2);
  });

  it('logs gateway errors at once, and counts them against the stream only when they settle a frame', () => {
    const h = setup();
    // About no pending frame (a ping, or a frame from before a reconnect): logged, nothing else.
    h.answers.answer({ type: 'error', id: 99, code: 'bad_message', message: 'no' }, 50, h.now());
    expect(h.errorLog.list()).toMatchObject([{ code: 'bad_message', id: 99, lastAt: 42 }]);
    expect(h.changes).toEqual([true]);
    expect(h.backoff.streak).toBe(0);
    expect(h.samples.size).toBe(0);

    const frame = h.send();
    h.answers.answer({ type: 'error', id: frame.id, code: 'overloaded', message: 'busy' }, 50, h.now());
    expect(h.backoff.streak).toBe(1);
    expect(h.samples.all()).toMatchObject([{ outcome: 'error', reason: 'overloaded' }]);
    expect(h.answers.latest).toBeUndefined();

    const next = h.send();
    h.answers.answer(detections(next.id), 300, h.now());
    expect(h.backoff.streak).toBe(0);
  });

  it('ignores a late answer for a frame that was already given up', () => {
    const h = setup();
    const frame = h.send();
    h.answers.abandonAll();
    h.answers.answer(detections(frame.id), 300, h.now());
    expect(h.samples.all().map((sample) => sample.outcome)).toEqual(['lost']);
    expect(h.answers.latest).toBeUndefined();
  });

  it('notes every frame the watchdog gave up on, so repeats collapse into one entry with a count', () => {
    const h = setup();
    h.send();
    h.send();
    h.tick(6000);
    h.answers.expired(h.sender.expire(5000));
    expect(h.noticeLog.list()).toMatchObject([{ code: 'no_answer', count: 2 }]);
    expect(h.samples.all().map((sample) => sample.outcome)).toEqual(['lost', 'lost']);
    expect(h.changes.at(-1)).toBe(true);
  });

  it('forgets the latest result, and clears the boxes, for a new source', () => {
    const h = setup();
    const frame = h.send();
    h.answers.answer(detections(frame.id), 300, h.now());
    h.answers.clearLatest();
    expect(h.answers.latest).toBeUndefined();
    expect(h.shown.at(-1)).toBeUndefined();
  });

  it("records this device's results like answers: a sample, the latest result and the same overlay", () => {
    const h = setup();
    const frame = { id: 50, model: 'ssd', sentAt: h.now(), bytes: 2000, threshold: 0.5, skippedBefore: 0 };
    h.tick(35);
    const timings = { decodeMs: 2, preprocessMs: 1, inferenceMs: 30, postprocessMs: 1 };
    const detection = { label: 'dog', classId: 18, score: 0.9, box: [0, 0, 10, 10] as [number, number, number, number] };
    h.answers.deviceOutcome({
      frame,
      kind: 'ok',
      answeredAt: h.now(),
      result: { type: 'result', id: 50, model: 'ssd', width: 400, height: 300, detections: [detection], timings },
    });
    expect(h.samples.all()).toMatchObject([{ id: 50, path: 'device', codec: null, fullMs: 35, inferenceMs: 30 }]);
    expect(h.answers.latest).toMatchObject({ id: 50, path: 'device', codec: null, deviceTimings: timings, fullMs: 35 });
    expect(h.answers.latest?.timings).toBeUndefined();
    expect(h.shown).toMatchObject([{ width: 400, height: 300, detections: [{ label: 'dog' }] }]);
    // Not the gateway's errors, not its backoff.
    h.answers.deviceOutcome({ frame: { ...frame, id: 51 }, kind: 'error', answeredAt: h.now(), error: 'bad image' });
    expect(h.noticeLog.list()).toMatchObject([{ code: 'on_device_error', message: 'On-device inference failed: bad image' }]);
    expect(h.errorLog.list()).toEqual([]);
    expect(h.backoff.streak).toBe(0);
    expect(h.samples.all().map((s) => s.outcome)).toEqual(['ok', 'error']);
  });
});
