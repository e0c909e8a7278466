/**
 * Whether a frame arriving now is queued or refused on receipt, and when a refused client should send again:
 * a pure function of the queue's state (counts, the round-robin order, how long a frame holds a place), so
 * it can be tested at any service time with no clock and no workers.
 *
 * A frame is refused on receipt, not after waiting: its wait is predicted from where it would stand in the
 * round-robin order (the waiting frames of the lanes served before its own, its lane's own backlog) and how
 * long a frame holds a place now. A frame predicted to start within its limit is accepted; any other is
 * answered `dropped` / `overloaded` at once, before a byte of it is decoded, with `retryAfterMs`: when its
 * lane's turn in that order comes round (or its predicted wait has cleared, whichever is later). The limit is
 * the budget, except for a lane's only frame (nothing of it in flight or waiting) while one round of the
 * other lanes sending is short (at most SHARE_FACTOR budgets: the lanes that sent within ACTIVE_WINDOW_MS,
 * each holding a place for the mean service time): then it is SHARE_FACTOR budgets. A camera sending faster
 * than its share learns when its next frame has a place instead of uploading frames to be refused.
 */
import { retryAfterFrom } from './retry-pacer.ts';

/** A lane's only frame is accepted with a wait of up to this many budgets while one round is as short. */
export const SHARE_FACTOR = 3;

/** A lane that sent a frame within this long shares the round (ms): the longest retryAfterMs, a refused client's pause. */
export const ACTIVE_WINDOW_MS = 1000;

/** What the policy reads of a lane. */
export interface LaneState {
  /** Its frames being processed now. */
  readonly inFlight: number;
  readonly waitingCount: number;
  /** The scheduler's turn counter when it last started a frame (lower = served longer ago). */
  readonly lastTurn: number;
  /** When it last pushed a frame (scheduler clock); -Infinity before its first. */
  readonly lastPushAt: number;
  /** When its oldest waiting frame arrived; undefined when none waits. */
  readonly headSince: number | undefined;
}

/** What the policy reads of the queue as a whole. */
export interface QueueState {
  /** Every lane, in registration order. */
  readonly lanes: Iterable<LaneState>;
  /** Places a frame could start on now. */
  readonly freePlaces: number;
  /** Places in all: frames processed side by side at most. */
  readonly places: number;
  /** How long a frame holds a place now (ms, a recent mean; 0 before any has finished). */
  readonly serviceMs: number;
  /** Longest predicted wait a frame is accepted with (ms). */
  readonly budgetMs: number;
  /** The scheduler's clock (ms). */
  readonly now: number;
}

/** Undefined: queue it. A number: refuse it, and tell the client to send again in that many ms. */
export type Admission = number | undefined;

/**
 * How long a frame of `lane` arriving now would wait for a place: the frames that start before it under
 * round-robin (one per lane served before this one, then, for each of its own frames already waiting, a
 * whole round), beyond the places free now, each taking one place's share of the service time.
 */
export function predictWait(queue: QueueState, lane: LaneState): number {
  let lanesBefore = 0;
  let lanesWaiting = 0;
  for (const other of queue.lanes) {
    if (other === lane || other.waitingCount === 0) continue;
    lanesWaiting++;
    if (other.lastTurn < lane.lastTurn || (other.lastTurn === lane.lastTurn && other.headSince !== undefined)) lanesBefore++;
  }
  const ahead = lanesBefore + lane.waitingCount * (lanesWaiting + 1);
  if (ahead < queue.freePlaces) return 0;
  return ((ahead - queue.freePlaces + 1) * queue.serviceMs) / queue.places;
}

/**
 * How many lanes sending now (within ACTIVE_WINDOW_MS) come before `lane` in the round-robin order: served
 * longer ago, or as long ago and registered earlier. A refused client is told to come back when its turn
 * comes round, not at the next free slot: slots handed out first come, first served spread the clients'
 * pauses at random (of 50 cameras, one held 1 s, the next 20 ms), and their shares of the detections with
 * them; by turn, the lane served last waits longest (docs/RELIABILITY.md, Fairness).
 */
export function turnsAhead(queue: QueueState, lane: LaneState): number {
  const since = queue.now - ACTIVE_WINDOW_MS;
  let ahead = 0;
  let registeredBefore = true;
  for (const other of queue.lanes) {
    if (other === lane) {
      registeredBefore = false;
      continue;
    }
    if (other.lastPushAt < since) continue;
    if (other.lastTurn < lane.lastTurn || (other.lastTurn === lane.lastTurn && registeredBefore)) ahead++;
  }
  return ahead;
}

/**
 * Whether a frame of `lane` arriving now is its only one, and one round of the other lanes sending, each
 * holding a place for the mean service time, takes at most SHARE_FACTOR budgets.
 */
export function withinShortRound(queue: QueueState, lane: LaneState): boolean {
  if (lane.inFlight > 0 || lane.waitingCount > 0) return false;
  const since = queue.now - ACTIVE_WINDOW_MS;
  let others = 0;
  for (const other of queue.lanes) if (other !== lane && other.lastPushAt >= since) others++;
  return (others * queue.serviceMs) / queue.places <= queue.budgetMs * SHARE_FACTOR;
}

/** Queue the frame of `lane` arriving now, or refuse it with when to send again. */
export function admission(queue: QueueState, lane: LaneState): Admission {
  const waitMs = predictWait(queue, lane);
  if (waitMs <= queue.budgetMs) return undefined;
  const limitMs = withinShortRound(queue, lane) ? queue.budgetMs * SHARE_FACTOR : queue.budgetMs;
  if (waitMs <= limitMs) return undefined;
  const untilTurnMs = (turnsAhead(queue, lane) * queue.serviceMs) / queue.places;
  return retryAfterFrom(Math.max(waitMs - limitMs, untilTurnMs));
}
