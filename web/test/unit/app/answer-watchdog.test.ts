import { describe, expect, it } from 'vitest';
import { AnswerWatchdog, EXPIRE_CHECK_MS } from '../../../src/app/answer-watchdog.ts';
import { ANSWER_TIMEOUT_MS, FrameSender, type GatewayOutcome } from '../../../src/transport/frame-sender.ts';
import { FakeClock } from '../../support/fake-clock.ts';

function setup() {
  const clock = new FakeClock();
  let id = 0;
  const sender = new FrameSender({ send: () => true, nextId: () => ++id, now: () => clock.now(), maxInFlight: 8 });
  /** What each check gave up on, when it gave up on any. */
  const expired: GatewayOutcome[][] = [];
  const watchdog = new AnswerWatchdog({
    clock,
    expire: (timeoutMs) => {
      const outcomes = sender.expire(timeoutMs);
      if (outcomes.length > 0) expired.push(outcomes);
    },
  });
  return { clock, sender, watchdog, expired };
}

describe('AnswerWatchdog', () => {
  it('gives up on an unanswered frame within one check interval after the answer timeout', () => {
    const h = setup();
    h.watchdog.start();
    h.clock.advance(120);
    h.sender.sendFrame(new Uint8Array(4));
    h.clock.advance(ANSWER_TIMEOUT_MS);
    expect(h.expired).toHaveLength(0);
    h.clock.advance(EXPIRE_CHECK_MS);
    expect(h.expired).toHaveLength(1);
    expect(h.expired[0]!.map((outcome) => outcome.kind)).toEqual(['lost']);
    expect(h.sender.inFlight).toBe(0);
  });

  it('reports nothing while every frame is answered in time', () => {
    const h = setup();
    h.watchdog.start();
    for (let i = 0; i < 20; i++) {
      const frame = h.sender.sendFrame(new Uint8Array(4))!;
      h.clock.advance(1000);
      h.sender.handleAnswer({ type: 'dropped', id: frame.id, reason: 'superseded' }, 10);
    }
    expect(h.expired).toEqual([]);
  });

  it('stops checking on stop', () => {
    const h = setup();
    h.watchdog.start();
    h.watchdog.start(); // a second start does not add a second chain of checks
    expect(h.clock.timerCount).toBe(1);
    h.sender.sendFrame(new Uint8Array(4));
    h.watchdog.stop();
    h.clock.advance(ANSWER_TIMEOUT_MS * 3);
    expect(h.expired).toEqual([]);
    expect(h.clock.timerCount).toBe(0);
  });
});
