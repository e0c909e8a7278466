/**
 * The admission policy as a pure function of the queue's state: no clock, no workers, no scheduler. Each
 * case builds the lanes and the queue as they would stand when a frame arrives.
 */
import { describe, expect, it } from 'vitest';
import {
  ACTIVE_WINDOW_MS,
  admission,
  predictWait,
  SHARE_FACTOR,
  turnsAhead,
  withinShortRound,
  type LaneState,
  type QueueState,
} from '../../../src/admission/admission-policy.ts';

const NOW = 10_000;

function lane(state: Partial<LaneState> = {}): LaneState {
  return { inFlight: 0, waitingCount: 0, lastTurn: 0, lastPushAt: -Infinity, headSince: undefined, ...state };
}

function queue(lanes: LaneState[], state: Partial<QueueState> = {}): QueueState {
  return { lanes, freePlaces: 0, places: 1, serviceMs: 20, budgetMs: 25, now: NOW, ...state };
}

/** A lane that sent a frame just now and has one waiting, served at `lastTurn`. */
const sending = (lastTurn: number) => lane({ lastTurn, lastPushAt: NOW - 1, waitingCount: 1, headSince: NOW - 1 });

describe('predictWait', () => {
  it('is zero while a place is free for every frame ahead, then one place share of the service time per frame beyond', () => {
    const me = lane({ lastTurn: 5 });
    const others = [sending(1), sending(2)];
    expect(predictWait(queue([me, ...others], { freePlaces: 3 }), me)).toBe(0);
    // Two frames ahead, no place free: the second ahead starts after two services, this one after three.
    expect(predictWait(queue([me, ...others], { freePlaces: 0, serviceMs: 20 }), me)).toBe(60);
    // Two places share the work: half as long.
    expect(predictWait(queue([me, ...others], { freePlaces: 0, places: 2, serviceMs: 20 }), me)).toBe(30);
  });

  it("puts a lane's own waiting frames a whole round behind: the others are served in between", () => {
    const me = lane({ lastTurn: 5, waitingCount: 1, headSince: NOW - 2 });
    const others = [sending(1), sending(2)];
    // Two lanes before it, and its own waiting frame with a round of three after that.
    expect(predictWait(queue([me, ...others]), me)).toBe((2 + 3 + 1) * 20);
  });
});

describe('turnsAhead and withinShortRound', () => {
  it('counts only the lanes that sent within the active window and come first in the order', () => {
    const me = lane({ lastTurn: 5 });
    const before = lane({ lastTurn: 2, lastPushAt: NOW - 10 });
    const after = lane({ lastTurn: 9, lastPushAt: NOW - 10 });
    const silent = lane({ lastTurn: 1, lastPushAt: NOW - ACTIVE_WINDOW_MS - 1 });
    expect(turnsAhead(queue([me, before, after, silent]), me)).toBe(1);
  });

  it("holds for a lane's only frame while one round of the others takes at most SHARE_FACTOR budgets", () => {
    const me = lane({ lastTurn: 5 });
    const others = (n: number) => Array.from({ length: n }, (_, i) => lane({ lastTurn: i, lastPushAt: NOW - 5 }));
    // Three others at 25 ms each is 75 ms = 3 budgets: short; a fourth makes it 100 ms.
    expect(withinShortRound(queue([me, ...others(3)], { serviceMs: 25 }), me)).toBe(true);
    expect(withinShortRound(queue([me, ...others(4)], { serviceMs: 25 }), me)).toBe(false);
    // A lane with a frame in flight is not sending its only frame.
    const busy = lane({ lastTurn: 5, inFlight: 1 });
    expect(withinShortRound(queue([busy, ...others(1)], { serviceMs: 25 }), busy)).toBe(false);
  });
});

describe('admission', () => {
  it('queues a frame predicted to start within the budget at any service time, and one with a place free at once', () => {
    for (const serviceMs of [1, 10, 25, 100, 1000]) {
      const me = lane({ lastTurn: 5 });
      expect(admission(queue([me], { freePlaces: 1, serviceMs }), me), `${serviceMs} ms`).toBeUndefined();
    }
    const me = lane({ lastTurn: 5 });
    // One frame running, none waiting: this one waits one service of 20 ms, within 25.
    expect(admission(queue([me], { serviceMs: 20 }), me)).toBeUndefined();
  });

  it('refuses a frame predicted to wait past its limit, telling it to come back when its turn comes round', () => {
    const me = lane({ lastTurn: 9, lastPushAt: NOW - 5, inFlight: 1 });
    const others = [sending(1), sending(2), sending(3)];
    // Three frames ahead of it, no place free: 4 x 20 = 80 ms > 25 (it has a frame in flight: the plain budget).
    const retry = admission(queue([me, ...others], { serviceMs: 20 }), me);
    // Its turn comes after the three lanes sending before it: 60 ms; its wait clears 55 ms later: the later one.
    expect(retry).toBe(60);
  });

  it("accepts a lane's only frame with up to SHARE_FACTOR budgets of wait among a few senders, not among many", () => {
    const me = lane({ lastTurn: 9 });
    const few = [sending(1), sending(2)];
    // 3 x 20 = 60 ms predicted: past the budget (25), within 3 budgets (75), one round of 2 x 20 = 40 ms is short.
    expect(admission(queue([me, ...few], { serviceMs: 20 }), me)).toBeUndefined();
    const many = Array.from({ length: 8 }, (_, i) => sending(i));
    expect(admission(queue([me, ...many], { serviceMs: 20 }), me)).toBeGreaterThan(0);
    expect(SHARE_FACTOR).toBe(3);
  });
});
