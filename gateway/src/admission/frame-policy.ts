/**
 * Whether a frame arriving now is queued or refused on receipt, and when a refused client should send again:
 * a pure function of the queue's state (counts, the order lanes are served in, how long a frame holds a
 * place now), so it can be tested at any service time with no clock and no workers.
 *
 * Two kinds of sender, told apart by counts alone:
 * - **Closed loop.** A lane that has never sent a frame while another of its frames was in flight or waiting
 *   (stop-and-wait: the next frame when an answer comes). Its frame is always queued: it holds one place, so
 *   the wait is bounded by the number of such lanes, whatever the machine's speed, and refusing it would only
 *   make the client upload it again (a naive client resends within a millisecond).
 * - **Open loop or pipelining.** A lane that has (a camera sending at its own rate, a client keeping several
 *   frames in flight). Its frame is queued when it is predicted to start within the freshness limit, the
 *   larger of the latency budget and one slot (the service time over the places: how often a place frees up,
 *   so a slower host does not turn its own service time into refusals), and while its lane has had no more than
 *   its share (at most SHARE_SLACK frames more than the least-served lane still asking for more). Otherwise it
 *   is answered `dropped` / `overloaded` at once, before a byte of it is decoded, with `retryAfterMs`: when its
 *   lane's turn comes round (or its predicted wait has cleared, whichever is later). Such a sender sends a fresher frame soon anyway: a frame of it that would wait behind another
 *   only makes every detected frame older (measured: with a limit of one whole service time the p95 of 50
 *   cameras' detected frames was 5.6-5.7x the service time of a frame beside another; with one slot, the
 *   share and the scheduler's drop at the limit, 2.2-2.6x; docs/RELIABILITY.md).
 *
 * Lanes are served least-served first (`startsBefore`: then closed-loop lanes served longest ago, then the
 * newest open-loop frame), so senders that keep sending get even shares by count however their frames'
 * arrivals fall; a lane that starts sending (again) joins at the count of the least-served lane sending now, so
 * it neither starves the others nor waits behind their history.
 */
import { retryAfterFrom } from './retry-pacer.ts';

/** A lane that sent a frame within this long is sending now (ms): the longest retryAfterMs, a refused client's pause. */
export const ACTIVE_WINDOW_MS = 1000;

/** What the policy reads of a lane. */
export interface LaneState {
  /** Its frames being processed now. */
  readonly inFlight: number;
  readonly waitingCount: number;
  /** Frames of it started, counted from where it joined (see `joinCount`). */
  readonly served: number;
  /** The scheduler's turn counter when it last started a frame (lower = served longer ago). */
  readonly lastTurn: number;
  /** When it last pushed a frame (scheduler clock); -Infinity before its first. */
  readonly lastPushAt: number;
  /** It has never sent a frame while another of its frames was in flight or waiting. */
  readonly closedLoop: boolean;
  /** When a frame of it was last refused (scheduler clock); -Infinity before any was. */
  readonly lastRefusedAt: number;
  /** When its oldest waiting frame arrived (scheduler clock); undefined when none waits. */
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
  /** The latency budget (ms): the least wait an open-loop frame may be queued with. */
  readonly budgetMs: number;
  /** The scheduler's clock (ms). */
  readonly now: number;
}

/** Queue it, with how long it is expected to wait; or refuse it, telling the client when to send again. */
export type Admission = { queue: true; predictedWaitMs: number } | { queue: false; retryAfterMs: number };

/** The longest predicted wait an open-loop frame is queued with: the budget, or one slot (a place frees up) on a slower host. */
export function freshnessLimitMs(queue: QueueState): number {
  return Math.max(queue.budgetMs, queue.serviceMs / queue.places);
}

/**
 * Whether `other` is served before `lane`: fewer frames served, or as many and served longer ago, or both
 * equal and registered earlier (`otherFirst`: it comes before `lane` in the queue's registration order).
 */
export function servedBefore(other: LaneState, lane: LaneState, otherFirst: boolean): boolean {
  if (other.served !== lane.served) return other.served < lane.served;
  if (other.lastTurn !== lane.lastTurn) return other.lastTurn < lane.lastTurn;
  return otherFirst;
}

/**
 * Whether the waiting frame of `other` starts before that of `lane`: the lane with fewer frames served first;
 * between lanes served as often, a closed-loop lane's (its client waits for the answer) in the order they were
 * served, then open-loop lanes' newest frame first. A camera's frame that is passed over is replaced by its
 * next one soon, while serving the oldest first would make every detected frame old (measured: 50 cameras,
 * queue p95 22 ms in turn order against 7 newest first; docs/RELIABILITY.md). `laneHeadAt`: when the frame of
 * `lane` arrived (now, for one being admitted).
 */
export function startsBefore(other: LaneState, lane: LaneState, otherFirst: boolean, laneHeadAt = lane.headSince): boolean {
  if (other.served !== lane.served) return other.served < lane.served;
  if (other.closedLoop !== lane.closedLoop) return other.closedLoop;
  if (!lane.closedLoop) {
    const otherAt = other.headSince ?? -Infinity;
    const laneAt = laneHeadAt ?? -Infinity;
    if (otherAt !== laneAt) return otherAt > laneAt;
  }
  return servedBefore(other, lane, otherFirst);
}

/** Whether a lane pushed a frame within the active window. */
export function sendingNow(queue: QueueState, lane: LaneState): boolean {
  return lane.lastPushAt >= queue.now - ACTIVE_WINDOW_MS;
}

/**
 * The count a lane that starts sending (again) joins at: the least served of the lanes sending now, so it
 * takes its turn among them; its own count when that is higher. 0 when nobody is sending.
 */
export function joinCount(queue: QueueState, lane: LaneState): number {
  let least = Infinity;
  for (const other of queue.lanes) if (other !== lane && sendingNow(queue, other)) least = Math.min(least, other.served);
  return least === Infinity ? lane.served : Math.max(lane.served, least);
}

/**
 * How long a frame of `lane` arriving now would wait for a place: the frames that start before it in the
 * serving order (one per waiting lane served before this one, then, for each of its own frames already
 * waiting, a whole round), beyond the places free now, each taking one place's share of the service time.
 */
export function predictWait(queue: QueueState, lane: LaneState): number {
  let lanesBefore = 0;
  let lanesWaiting = 0;
  let first = true;
  for (const other of queue.lanes) {
    if (other === lane) {
      first = false;
      continue;
    }
    if (other.waitingCount === 0) continue;
    lanesWaiting++;
    if (startsBefore(other, lane, first, lane.headSince ?? queue.now)) lanesBefore++;
  }
  const ahead = lanesBefore + lane.waitingCount * (lanesWaiting + 1);
  if (ahead < queue.freePlaces) return 0;
  return ((ahead - queue.freePlaces + 1) * queue.serviceMs) / queue.places;
}

/**
 * How many lanes sending now come before `lane` in the serving order. A refused client is told to come back
 * when its turn comes round, not at the next free slot, so the lane served last waits longest and shares stay
 * even (docs/RELIABILITY.md, Fairness).
 */
export function turnsAhead(queue: QueueState, lane: LaneState): number {
  let ahead = 0;
  let first = true;
  for (const other of queue.lanes) {
    if (other === lane) {
      first = false;
      continue;
    }
    if (sendingNow(queue, other) && servedBefore(other, lane, first)) ahead++;
  }
  return ahead;
}

/**
 * Frames a lane may be ahead of the least served lane that wants more and still have a frame queued, even for a
 * place free now. With a short freshness limit and the newest frame first, a slack of 1 let the last cameras of
 * a round, whose frames had gone stale, hold every other camera back while places idled (docs/RELIABILITY.md,
 * *The newest frame first*); 3 keeps shares within 1.02-1.04 over a minute.
 */
export const SHARE_SLACK = 3;

/** Whether a lane is asking for more than it gets: open loop, and a frame of it refused within the active window. */
export function wantsMore(queue: QueueState, lane: LaneState): boolean {
  return !lane.closedLoop && lane.lastRefusedAt >= queue.now - ACTIVE_WINDOW_MS;
}

/**
 * Whether `lane` has had no more than its share: at most `slack` frames more than the least served of the
 * other lanes that want more. Lanes whose every frame is taken (closed-loop clients, slow cameras) do not hold
 * the others back: their share is what they ask for.
 */
export function withinShare(queue: QueueState, lane: LaneState, slack = SHARE_SLACK): boolean {
  for (const other of queue.lanes) if (other !== lane && wantsMore(queue, other) && lane.served > other.served + slack) return false;
  return true;
}

/** Queue the frame of `lane` arriving now, or refuse it with when to send again. */
export function admission(queue: QueueState, lane: LaneState): Admission {
  const waitMs = predictWait(queue, lane);
  const alone = lane.inFlight === 0 && lane.waitingCount === 0;
  if (lane.closedLoop && alone) return { queue: true, predictedWaitMs: waitMs };
  const limitMs = freshnessLimitMs(queue);
  if (waitMs <= limitMs && withinShare(queue, lane)) return { queue: true, predictedWaitMs: waitMs };
  const untilTurnMs = (turnsAhead(queue, lane) * queue.serviceMs) / queue.places;
  return { queue: false, retryAfterMs: retryAfterFrom(Math.max(waitMs - limitMs, untilTurnMs)) };
}
