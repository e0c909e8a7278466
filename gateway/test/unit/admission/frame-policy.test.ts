/**
 * The admission policy as a pure function of the queue's state: no clock, no workers, no scheduler. Each
 * case builds the lanes and the queue as they would stand when a frame arrives, at several service times
 * (a fast host, a slow one, a very slow one), and checks the decision does not flip with the host's speed.
 */
import { describe, expect, it } from 'vitest';
import {
  ACTIVE_WINDOW_MS,
  SHARE_SLACK,
  POLICY_RULES,
  admission,
  isLate,
  joinsAt,
  openLoopPatienceMs,
  runsWide,
  supersedes,
  turnsOpenLoop,
  unstartedAnswer,
  freshnessLimitMs,
  joinCount,
  predictWait,
  servedBefore,
  startsBefore,
  turnsAhead,
  wantsMore,
  withinShare,
  type LaneState,
  type QueueState,
} from '../../../src/admission/frame-policy.ts';

const NOW = 10_000;
/** A fast host, this machine on a slow day, a very slow one. */
const SERVICE_TIMES_MS = [5, 15, 30, 60, 250];

function lane(state: Partial<LaneState> = {}): LaneState {
  return {
    inFlight: 0,
    waitingCount: 0,
    served: 10,
    lastTurn: 0,
    lastPushAt: NOW - 1,
    closedLoop: true,
    lastRefusedAt: -Infinity,
    headSince: undefined,
    ...state,
  };
}

function queue(lanes: LaneState[], state: Partial<QueueState> = {}): QueueState {
  return {
    lanes,
    freePlaces: 0,
    places: 2,
    running: 2,
    waiting: 0,
    maxWaiting: 64,
    lastRefusedAt: -Infinity,
    serviceMs: 20,
    budgetMs: 25,
    now: NOW,
    ...state,
  };
}

/** A lane with one frame waiting, `served` frames served so far. */
const waiting = (served: number, lastTurn = served) => lane({ served, lastTurn, waitingCount: 1, headSince: NOW - 5 });

describe('closed-loop lanes (stop-and-wait)', () => {
  it('queues their only frame at any service time, however many lanes wait ahead: the wait is bounded by their count', () => {
    for (const serviceMs of SERVICE_TIMES_MS) {
      for (const ahead of [0, 5, 50]) {
        const me = lane({ served: 20, lastTurn: 999 });
        const others = Array.from({ length: ahead }, (_, i) => waiting(10, i));
        const state = queue([me, ...others], { serviceMs });
        const decision = admission(state, me);
        expect(decision, `${serviceMs} ms, ${ahead} ahead`).toEqual({
          queue: true,
          predictedWaitMs: predictWait(state, me),
          patienceMs: Infinity,
        });
        // Each lane ahead holds one place: the wait is at most one service share per lane.
        expect(predictWait(state, me)).toBeLessThanOrEqual(((ahead + 1) * serviceMs) / 2);
      }
    }
  });

  it('stops counting a lane as closed loop once it sends with a frame of its own out: the policy reads the flag', () => {
    const pipelining = lane({ closedLoop: false, served: 20, lastTurn: 999 });
    const others = Array.from({ length: 5 }, (_, i) => waiting(10, i));
    expect(admission(queue([pipelining, ...others], { serviceMs: 30 }), pipelining)).toMatchObject({ queue: false });
  });
});

describe('open-loop lanes (cameras at their own rate, pipelining clients)', () => {
  it('are queued while predicted to start within the freshness limit, and refused once stale, at every service time', () => {
    for (const serviceMs of SERVICE_TIMES_MS) {
      const camera = lane({ closedLoop: false, served: 20, lastTurn: 999 });
      // Nothing waiting and both places busy: it starts when the first place frees up, one slot.
      const fresh = queue([camera, lane({ served: 10 })], { serviceMs });
      expect(admission(fresh, camera), `${serviceMs} ms fresh`).toMatchObject({ queue: true, predictedWaitMs: serviceMs / 2 });
      // 24 lanes ahead: twelve service times for two places, past the budget on a fast host and one slot on a slow one.
      const stale = queue([camera, ...Array.from({ length: 24 }, (_, i) => waiting(10, i))], { serviceMs });
      expect(admission(stale, camera), `${serviceMs} ms stale`).toMatchObject({ queue: false });
    }
  });

  it('are not queued behind another waiting frame on a slow host: a fresher one of theirs comes sooner than it would start', () => {
    const camera = lane({ closedLoop: false, served: 20, lastTurn: 999 });
    // One lane waiting ahead: two slots. Within the 25 ms budget on a fast host, past one slot on a slow one.
    expect(admission(queue([camera, waiting(10)], { serviceMs: 15 }), camera)).toMatchObject({ queue: true });
    expect(admission(queue([camera, waiting(10)], { serviceMs: 60 }), camera)).toMatchObject({ queue: false });
  });

  it('measure freshness in slots (a place frees up) on a slow host and by the budget on a fast one', () => {
    expect(freshnessLimitMs(queue([], { serviceMs: 5, budgetMs: 25 }))).toBe(25);
    expect(freshnessLimitMs(queue([], { serviceMs: 60, budgetMs: 25 }))).toBe(30);
    expect(freshnessLimitMs(queue([], { serviceMs: 60, budgetMs: 25, places: 1 }))).toBe(60);
  });

  it('are held to their share while other cameras want more: at most SHARE_SLACK frames ahead of the least served, at every service time', () => {
    for (const serviceMs of SERVICE_TIMES_MS) {
      const refusedJustNow = { closedLoop: false, lastRefusedAt: NOW - 1 };
      const ahead = lane({ ...refusedJustNow, served: 10 + SHARE_SLACK + 1, lastTurn: 999 });
      const even = lane({ ...refusedJustNow, served: 10 + SHARE_SLACK, lastTurn: 998 });
      const behind = lane({ ...refusedJustNow, served: 10, lastTurn: 1 });
      const state = queue([ahead, even, behind], { serviceMs });
      expect(wantsMore(state, behind)).toBe(true);
      expect(withinShare(state, ahead)).toBe(false);
      expect(withinShare(state, even)).toBe(true);
      // Both places busy, nothing waiting: one slot's wait, within the limit, but past its share.
      expect(admission(state, ahead), `${serviceMs} ms`).toMatchObject({ queue: false });
      expect(admission(state, even), `${serviceMs} ms`).toMatchObject({ queue: true });
      // Not even for a place free now: the lanes behind it take their turns.
      expect(admission({ ...state, freePlaces: 1 }, ahead), `${serviceMs} ms, a place free`).toMatchObject({ queue: false });
      expect(admission({ ...state, freePlaces: 1 }, even), `${serviceMs} ms, a place free`).toMatchObject({
        queue: true,
        predictedWaitMs: 0,
      });
    }
  });

  it('are not held back by lanes that get all they ask for (closed loop, or not refused within the active window)', () => {
    const camera = lane({ closedLoop: false, lastRefusedAt: NOW - 1, served: 30, lastTurn: 999 });
    const stopAndWait = lane({ served: 2, lastRefusedAt: NOW - 1 });
    const slowCamera = lane({ closedLoop: false, served: 3, lastRefusedAt: NOW - ACTIVE_WINDOW_MS - 1 });
    const state = queue([camera, stopAndWait, slowCamera], { serviceMs: 30 });
    expect(wantsMore(state, stopAndWait)).toBe(false);
    expect(wantsMore(state, slowCamera)).toBe(false);
    expect(admission(state, camera)).toMatchObject({ queue: true });
  });

  it('are told to come back when their turn comes round: the least served first, the most served last', () => {
    const lanes = [lane({ served: 12 }), lane({ served: 10 }), lane({ served: 11 })];
    const [a, b, c] = lanes.map((l) => ({ ...l, closedLoop: false, inFlight: 1 }));
    const others = Array.from({ length: 6 }, (_, i) => waiting(5, i));
    const state = queue([a!, b!, c!, ...others], { serviceMs: 40 });
    const retry = (l: LaneState) => {
      const decision = admission(state, l);
      if (decision.queue || 'paced' in decision) throw new Error('queued, or refused for another reason');
      return decision.retryAfterMs;
    };
    expect(turnsAhead(state, b!)).toBeLessThan(turnsAhead(state, c!));
    expect(retry(b!)).toBeLessThan(retry(c!));
    expect(retry(c!)).toBeLessThan(retry(a!));
  });
});

describe('the serving order', () => {
  it('puts the least served first, then the one served longest ago, then the one registered first', () => {
    expect(servedBefore(lane({ served: 3, lastTurn: 50 }), lane({ served: 4, lastTurn: 1 }), false)).toBe(true);
    expect(servedBefore(lane({ served: 4, lastTurn: 1 }), lane({ served: 4, lastTurn: 2 }), false)).toBe(true);
    expect(servedBefore(lane({ served: 4, lastTurn: 2 }), lane({ served: 4, lastTurn: 2 }), true)).toBe(true);
    expect(servedBefore(lane({ served: 4, lastTurn: 2 }), lane({ served: 4, lastTurn: 2 }), false)).toBe(false);
  });

  it("starts the least served lane's frame first; among lanes served as often, a closed-loop lane's, then the newest open-loop frame", () => {
    const camera = (served: number, headSince: number, lastTurn = 0) =>
      lane({ closedLoop: false, served, headSince, lastTurn, waitingCount: 1 });
    // Fewer served first, however old its frame.
    expect(startsBefore(camera(3, NOW - 90), camera(4, NOW - 1), false)).toBe(true);
    // As often: the newest frame first, whichever lane was served longer ago.
    expect(startsBefore(camera(4, NOW - 1, 50), camera(4, NOW - 20, 1), false)).toBe(true);
    expect(startsBefore(camera(4, NOW - 20, 1), camera(4, NOW - 1, 50), true)).toBe(false);
    // A frame being admitted now is the newest of all.
    expect(startsBefore(camera(4, NOW - 1), lane({ closedLoop: false, served: 4 }), true, NOW)).toBe(false);
    // A stop-and-wait client's frame before any camera's served as often, however fresh the camera's.
    const stopAndWait = lane({ served: 4, headSince: NOW - 30, waitingCount: 1 });
    expect(startsBefore(stopAndWait, camera(4, NOW), false)).toBe(true);
    expect(startsBefore(camera(4, NOW), stopAndWait, true)).toBe(false);
    // Between closed-loop lanes, the order they were served in, as before.
    expect(
      startsBefore(lane({ served: 4, lastTurn: 1, headSince: NOW - 1 }), lane({ served: 4, lastTurn: 2, headSince: NOW - 30 }), false),
    ).toBe(true);
  });

  it('predicts no wait behind older frames of cameras served as often: the newest goes first', () => {
    const camera = lane({ closedLoop: false, served: 10, lastTurn: 999, inFlight: 1 });
    const olderCameras = Array.from({ length: 6 }, (_, i) =>
      lane({ closedLoop: false, served: 10, lastTurn: i, waitingCount: 1, headSince: NOW - 5 }),
    );
    const state = queue([...olderCameras, camera], { serviceMs: 20, freePlaces: 1 });
    expect(predictWait(state, camera)).toBe(0);
    // Behind cameras served less, it waits its place in the order.
    const lessServed = olderCameras.map((other) => ({ ...other, served: 9 }));
    expect(predictWait(queue([...lessServed, camera], { serviceMs: 20, freePlaces: 1 }), camera)).toBe(60);
  });

  it('lets a lane that starts sending join at the least served count of the lanes sending now, never below its own', () => {
    const quiet = lane({ served: 0, lastPushAt: -Infinity });
    const sending = [lane({ served: 40 }), lane({ served: 37 }), lane({ served: 2, lastPushAt: NOW - ACTIVE_WINDOW_MS - 1 })];
    expect(joinCount(queue([quiet, ...sending]), quiet)).toBe(37);
    expect(joinCount(queue([lane({ served: 50, lastPushAt: -Infinity }), ...sending]), lane({ served: 50 }))).toBe(50);
    expect(joinCount(queue([quiet]), quiet)).toBe(0);
  });
});

describe('the rules of an arrival, each alone', () => {
  it('turnsOpenLoop: a closed-loop lane that sends with a frame of its own out, and only then', () => {
    expect(turnsOpenLoop(lane({ inFlight: 1 }))).toBe(true);
    expect(turnsOpenLoop(lane({ waitingCount: 1 }))).toBe(true);
    expect(turnsOpenLoop(lane())).toBe(false);
    expect(turnsOpenLoop(lane({ closedLoop: false, inFlight: 1 }))).toBe(false);
  });

  it('joinsAt: a lane that was quiet for the active window joins at the least-served count of those sending', () => {
    const sending = [lane({ served: 40 }), lane({ served: 35 })];
    const quiet = lane({ served: 3, lastPushAt: NOW - ACTIVE_WINDOW_MS - 1 });
    expect(joinsAt(queue([quiet, ...sending]), quiet)).toBe(35);
    // Sending now: its count stays.
    const active = lane({ served: 3 });
    expect(joinsAt(queue([active, ...sending]), active)).toBeUndefined();
  });

  it('supersedes: a frame at a full lane pushes the oldest out; an empty lane never', () => {
    expect(supersedes(lane({ waitingCount: 2 }), 2)).toBe(true);
    expect(supersedes(lane({ waitingCount: 1 }), 2)).toBe(false);
    // No queue at all: the frame waits for the hand-out and is answered there (unstartedAnswer).
    expect(supersedes(lane({ waitingCount: 0 }), 0)).toBe(false);
  });

  it('admission: the gateway holding all it may refuses even a closed-loop frame, its retry paced by the scheduler', () => {
    const me = lane();
    expect(admission(queue([me], { waiting: 64, maxWaiting: 64 }), me)).toEqual({ queue: false, paced: true });
    expect(admission(queue([me], { waiting: 63, maxWaiting: 64 }), me)).toMatchObject({ queue: true });
  });

  it("admission: an open-loop frame's patience is the freshness limit; a closed-loop frame's has none", () => {
    for (const serviceMs of SERVICE_TIMES_MS) {
      const state = queue([], { serviceMs, freePlaces: 2, running: 0 });
      const camera = lane({ closedLoop: false });
      expect(admission(state, camera)).toMatchObject({ queue: true, patienceMs: openLoopPatienceMs(state) });
      expect(openLoopPatienceMs(state)).toBe(Math.max(25, serviceMs / 2));
      expect(admission(state, lane())).toMatchObject({ queue: true, patienceMs: Infinity });
    }
  });

  it('isLate: only a frame a hand-out passed over, once its patience is spent', () => {
    expect(isLate({ lateAt: NOW, passedOver: true }, NOW)).toBe(true);
    expect(isLate({ lateAt: NOW, passedOver: true }, NOW - 1)).toBe(false);
    expect(isLate({ lateAt: NOW, passedOver: false }, NOW + 1000)).toBe(false);
    expect(isLate({ lateAt: Infinity, passedOver: true }, NOW + 1e9)).toBe(false);
  });

  it('unstartedAnswer: with no queue, overloaded when the places were taken, superseded when its own frames held it', () => {
    expect(unstartedAnswer(lane({ inFlight: 0 }), 1)).toBe('overloaded');
    expect(unstartedAnswer(lane({ inFlight: 1 }), 1)).toBe('superseded');
  });

  it('runsWide: a frame alone with nothing running, unless a frame was refused within the last service time', () => {
    const idle = queue([], { running: 0, serviceMs: 20 });
    expect(runsWide(idle, 1)).toBe(true);
    expect(runsWide(idle, 2)).toBe(false);
    expect(runsWide({ ...idle, running: 1 }, 1)).toBe(false);
    expect(runsWide({ ...idle, lastRefusedAt: NOW - 20 }, 1)).toBe(false);
    expect(runsWide({ ...idle, lastRefusedAt: NOW - 21 }, 1)).toBe(true);
  });

  it('lists every rule with why it is there', () => {
    for (const rule of POLICY_RULES) {
      expect(rule.rule).not.toBe('');
      expect(rule.decides).not.toBe('');
      expect(rule.why).not.toBe('');
    }
  });
});
