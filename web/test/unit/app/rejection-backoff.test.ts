import { describe, expect, it } from 'vitest';
import { RejectionBackoff, rejectionDelay } from '../../../src/app/rejection-backoff.ts';
import type { FrameOutcome } from '../../../src/frame-routes/frame-outcome.ts';
import { FakeClock } from '../../support/fake-clock.ts';
import { deviceFrame, deviceResult, errorOutcome } from '../../support/outcomes.ts';

const frame = deviceFrame(1, 0, { path: 'gateway' });
const error = (code = 'overloaded'): FrameOutcome => errorOutcome(frame, 0, code);
const dropped: FrameOutcome = { frame, kind: 'dropped', answeredAt: 0, reason: 'superseded' };
const detections: FrameOutcome = { frame, kind: 'ok', answeredAt: 0, result: deviceResult() };

function setup(start = 1000) {
  const clock = new FakeClock(start);
  const backoff = new RejectionBackoff(clock);
  let changes = 0;
  backoff.changed.subscribe(() => changes++);
  return { clock, backoff, changes: () => changes };
}

describe('rejectionDelay', () => {
  it('doubles from 100 ms and stays at 2 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 50].map(rejectionDelay)).toEqual([100, 200, 400, 800, 1600, 2000, 2000, 2000]);
  });
});

describe('RejectionBackoff', () => {
  it('holds the next frame longer with every error in a row', () => {
    const h = setup();
    expect(h.backoff.waitMs()).toBe(0);
    h.backoff.track(error());
    expect(h.backoff.waitMs()).toBe(100);
    h.clock.advance(60);
    expect(h.backoff.waitMs()).toBe(40);
    h.backoff.track(error('unknown_model'));
    expect(h.backoff.waitMs()).toBe(200);
    expect(h.backoff).toMatchObject({ streak: 2, lastRejection: { code: 'unknown_model', message: 'unknown_model!' } });
    h.clock.advance(500);
    expect(h.backoff.waitMs()).toBe(0);
  });

  it('says when the hold runs out, so the stream goes on by itself', () => {
    const h = setup();
    h.backoff.track(error());
    expect(h.changes()).toBe(1);
    h.clock.advance(99);
    expect(h.changes()).toBe(1);
    h.clock.advance(1);
    expect(h.changes()).toBe(2);
    expect(h.backoff.waitMs()).toBe(0);
  });

  it('resets on detections; a dropped frame says nothing either way', () => {
    const h = setup();
    h.backoff.track(error());
    h.backoff.track(error());
    h.backoff.track(dropped);
    expect(h.backoff.streak).toBe(2);
    expect(h.backoff.waitMs()).toBe(200);
    const changes = h.changes();
    h.backoff.track(detections);
    expect(h.backoff).toMatchObject({ streak: 0, lastRejection: undefined });
    expect(h.backoff.waitMs()).toBe(0);
    expect(h.changes()).toBe(changes + 1);
    // Nothing held, nothing to say: detections in a row are no change.
    h.backoff.track(detections);
    expect(h.changes()).toBe(changes + 1);
    expect(h.clock.timerCount).toBe(0);
    h.backoff.track(error());
    expect(h.backoff.waitMs()).toBe(100);
  });

  it('drops its hold and its timer on stop, keeping the streak', () => {
    const h = setup();
    h.backoff.track(error());
    h.backoff.stop();
    expect(h.backoff.waitMs()).toBe(0);
    expect(h.backoff.streak).toBe(1);
    expect(h.clock.timerCount).toBe(0);
  });

  describe("the gateway's retryAfterMs", () => {
    const refusedError = (retryAfterMs: number): FrameOutcome => ({
      frame,
      kind: 'error',
      answeredAt: 0,
      reason: 'overloaded',
      message: 'busy',
      retryAfterMs,
    });
    const refusedDrop = (retryAfterMs: number): FrameOutcome => ({
      frame,
      kind: 'dropped',
      answeredAt: 0,
      reason: 'overloaded',
      retryAfterMs,
    });

    it('holds the next frame exactly as long as an overloaded error says, instead of the backoff', () => {
      const h = setup();
      h.backoff.track(refusedError(340));
      expect(h.backoff.waitMs()).toBe(340);
      expect(h.backoff.streak).toBe(1);
      h.clock.advance(339);
      expect(h.changes()).toBe(1);
      h.clock.advance(1);
      expect(h.changes()).toBe(2);
      expect(h.backoff.waitMs()).toBe(0);
    });

    it('holds the next frame after an overloaded drop that says when, and lets a drop that does not go at once', () => {
      const h = setup();
      h.backoff.track(refusedDrop(60));
      expect(h.backoff.waitMs()).toBe(60);
      expect(h.backoff.streak).toBe(0);
      h.clock.advance(60);
      expect(h.backoff.waitMs()).toBe(0);
      expect(h.changes()).toBe(2);
      h.backoff.track(dropped);
      expect(h.backoff.waitMs()).toBe(0);
      expect(h.changes()).toBe(2);
    });

    it('is never cut short: not by a shorter refusal, not by detections of frames already out', () => {
      const h = setup();
      h.backoff.track(refusedDrop(500));
      h.clock.advance(100);
      h.backoff.track(refusedError(50));
      expect(h.backoff.waitMs()).toBe(400);
      // Several frames in flight: one answered with detections after the refusal ends the streak, not the hold.
      h.backoff.track(detections);
      expect(h.backoff.streak).toBe(0);
      expect(h.backoff.waitMs()).toBe(400);
      h.clock.advance(399);
      expect(h.backoff.waitMs()).toBe(1);
      h.clock.advance(1);
      expect(h.backoff.waitMs()).toBe(0);
      expect(h.clock.timerCount).toBe(0);
    });

    it('a longer figure extends the hold, and the release waits for it', () => {
      const h = setup();
      h.backoff.track(refusedDrop(100));
      h.backoff.track(refusedDrop(800));
      const changes = h.changes();
      h.clock.advance(100);
      expect(h.changes()).toBe(changes);
      h.clock.advance(700);
      expect(h.changes()).toBe(changes + 1);
    });
  });
});
