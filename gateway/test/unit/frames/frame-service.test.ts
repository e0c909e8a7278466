/**
 * The frame core with its real scheduler in front of a stand-in executor: what a detected frame is answered
 * with (its wait from receipt to its run on one clock, where its model ran, the tracks), how a remote
 * engine's health follows each answer, and how a frame run once (HTTP) is refused or answered.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FrameResult } from '@sightline/shared/model';
import { ProtocolError } from '@sightline/shared/validation';
import type { AdmittedFrame } from '../../../src/admission/frame-admission.ts';
import type { EngineMonitor } from '../../../src/engines/engine-monitor.ts';
import { FrameService } from '../../../src/frames/frame-service.ts';
import type { Detected, FrameAnswer, PendingFrame } from '../../../src/frames/pending-frame.ts';
import type { ModelSpec } from '../../../src/models/manifest.ts';
import { FairScheduler } from '../../../src/scheduling/fair-scheduler.ts';
import { HeldFrames } from '../../support/held-frames.ts';

const RESULT: FrameResult = {
  width: 640,
  height: 480,
  detections: [{ label: 'dog', classId: 18, score: 0.9, box: [10, 10, 100, 100] }],
  decoder: 'turbo',
  stages: { decodeMs: 1.5, preprocessMs: 0.5, inferenceMs: 20, postprocessMs: 0.25 },
};

const spec = (engine?: boolean) =>
  ({
    manifest: { name: engine ? 'remote-ssd' : 'ssd' },
    scoreThreshold: 0.5,
    ...(engine ? { engine: { url: 'http://x', model: 'm' } } : {}),
  }) as unknown as ModelSpec;

function admitted(engine = false): AdmittedFrame {
  return {
    spec: spec(engine),
    threshold: 0.5,
    decodeBytes: 0,
    frame: {
      kind: 'encoded',
      bytes: new Uint8Array([0xff, 0xd8, 0xff]),
      header: { format: 'jpeg', width: 640, height: 480, oriented: true, orientation: 1 },
      plan: { kind: 'sharp-native', placement: { offsetX: 0, offsetY: 0, contentWidth: 300, contentHeight: 300 } },
    },
  };
}

function recording() {
  const answers: Array<{ kind: string; detected?: Detected; reason?: string; error?: unknown }> = [];
  const answer: FrameAnswer = {
    detected: (detected) => answers.push({ kind: 'detected', detected }),
    dropped: (reason) => answers.push({ kind: 'dropped', reason }),
    failed: (error) => answers.push({ kind: 'failed', error }),
  };
  return { answers, answer };
}

async function turn(): Promise<void> {
  for (let i = 0; i < 3; i++) await Promise.resolve();
  vi.advanceTimersByTime(0);
  for (let i = 0; i < 3; i++) await Promise.resolve();
}

describe('frame service', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function service(engines?: Pick<EngineMonitor, 'failed' | 'succeeded'>) {
    const executor = new HeldFrames(1);
    const scheduler = new FairScheduler<PendingFrame, FrameResult>({ budgetMs: 50, maxWaiting: 10, now: () => Date.now() }, executor);
    const frames = new FrameService(scheduler, () => admitted(), engines as EngineMonitor | undefined);
    return { executor, frames };
  }

  it('answers a detected frame with its wait from receipt to its run on one clock, where it ran, and the result as the worker gave it', async () => {
    const { executor, frames } = service();
    const busy = frames.openStream({ maxInFlight: 1, queueLength: 1 });
    busy.push(admitted(), recording().answer, { receivedAt: Date.now(), capturedAt: 0 });
    await turn(); // the place is taken
    const stream = frames.openStream({ maxInFlight: 1, queueLength: 1 });
    const { answers, answer } = recording();
    const receivedAt = Date.now() - 3; // read and checked 3 ms before it was pushed
    stream.push(admitted(), answer, { receivedAt, capturedAt: 0 });
    vi.advanceTimersByTime(7);
    executor.answerOldest(RESULT); // the place frees up 7 ms later: the frame starts
    await turn();
    executor.answerOldest(RESULT);
    await turn();
    expect(answers).toEqual([{ kind: 'detected', detected: { model: 'ssd', runner: 'local', result: RESULT, queueMs: 10 } }]);
  });

  it('gives each detection the id of its track on a stream that tracks, the frame’s capture time as its time', async () => {
    const { executor, frames } = service();
    const stream = frames.openStream({ maxInFlight: 1, queueLength: 1, tracking: true });
    const { answers, answer } = recording();
    for (let i = 0; i < 4; i++) {
      stream.push(admitted(), answer, { receivedAt: Date.now(), capturedAt: i * 40 });
      await turn();
      executor.answerOldest(RESULT);
      await turn();
    }
    const ids = answers.map((a) => a.detected!.result.detections[0]!.trackId);
    // Unconfirmed at first, then one id that stays.
    expect(ids.at(-1)).toBeGreaterThan(0);
    expect(new Set(ids.filter((id) => id !== undefined)).size).toBe(1);
  });

  it("tells a remote model's engine monitor how each frame went: unavailable opens its circuit, an answer closes it", async () => {
    const engines = { failed: vi.fn(), succeeded: vi.fn() };
    const { executor, frames } = service(engines);
    const stream = frames.openStream({ maxInFlight: 1, queueLength: 1 });
    const { answers, answer } = recording();
    stream.push(admitted(true), answer, { receivedAt: Date.now(), capturedAt: 0 });
    await turn();
    executor.answerOldest(new ProtocolError('unavailable', 'the inference engine did not answer'));
    await turn();
    stream.push(admitted(true), answer, { receivedAt: Date.now(), capturedAt: 0 });
    await turn();
    executor.answerOldest(RESULT);
    await turn();
    expect(engines.failed).toHaveBeenCalledWith('remote-ssd', 'the inference engine did not answer');
    expect(engines.succeeded).toHaveBeenCalledWith('remote-ssd');
    expect(answers.map((a) => a.kind)).toEqual(['failed', 'detected']);
    expect(answers[1]!.detected!.runner).toBe('remote');
  });

  it('runs a frame once (HTTP) in its turn; refuses it as overloaded with a retry hint when it is dropped late; passes a failure on', async () => {
    const { executor, frames } = service();
    const first = frames.detectOnce(admitted(), Date.now());
    await turn();
    expect(executor.holding).toBe(1);
    const second = frames.detectOnce(admitted(), Date.now());
    await turn();
    // The first one takes long: the second, a request's only frame, waits its turn however long.
    vi.advanceTimersByTime(60_000);
    executor.answerOldest(RESULT);
    await expect(first).resolves.toMatchObject({ model: 'ssd', result: RESULT });
    await turn();
    executor.answerOldest(RESULT);
    await expect(second).resolves.toMatchObject({ model: 'ssd', result: RESULT });
    const third = frames.detectOnce(admitted(), Date.now());
    await turn();
    executor.answerOldest(new ProtocolError('bad_image', 'image could not be decoded: premature end'));
    await expect(third).rejects.toMatchObject({ code: 'bad_image', message: /premature end/ });
    expect(frames.scheduler.load).toEqual({ running: 0, waiting: 0 });
  });
});
