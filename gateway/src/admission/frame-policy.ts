/**
 * Every decision about a frame, in one place: take it, refuse it (and when its client should send again), drop
 * it later, and which waiting frame starts next, with how many threads. Pure functions of the queue's state
 * (counts, the order lanes are served in, how long a frame holds a place now, the scheduler's clock), so each
 * rule is tested alone with a fake clock and no workers; the scheduler (scheduling/fair-scheduler.ts) and the
 * executor (inference/inference-executor.ts) only keep lanes and places and hand out work as these say.
 * POLICY_RULES lists the rules: what each decides, why, and the setting it reads.
 *
 * Two kinds of sender, told apart by counts alone:
 * - **Closed loop.** A lane that has never sent a frame while another of its frames was in flight or waiting
 *   (stop-and-wait: the next frame when an answer comes). Its frame is always queued and never dropped for
 *   lateness: it holds one place, so the wait is bounded by the number of such lanes, whatever the machine's
 *   speed, and refusing it would only make the client upload it again (a naive client resends within a
 *   millisecond). A worker that stops answering is the executor watchdog's to find, not a lateness rule's.
 * - **Open loop or pipelining.** A lane that has (a camera sending at its own rate, a client keeping several
 *   frames in flight). Its frame is queued when it is predicted to start within the freshness limit, the
 *   larger of the latency budget and one place interval (the service time over the places: how often a place
 *   frees up, so a slower host does not turn its own service time into refusals), and while its lane has had no
 *   more than its share. Otherwise it is answered `dropped` / `overloaded` at once, before a byte of it is
 *   decoded, with `retryAfterMs`: when its lane's turn comes round (or its predicted wait has cleared,
 *   whichever is later). Such a sender sends a fresher frame soon anyway: a frame of it that would wait behind
 *   another only makes every detected frame older.
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
  /** Runs on the places now (a frame, or a batch). */
  readonly running: number;
  /** Frames waiting, gateway-wide. */
  readonly waiting: number;
  /** Frames that may wait gateway-wide (SIGHTLINE_MAX_WAITING). */
  readonly maxWaiting: number;
  /** When a frame was last refused anywhere (scheduler clock); -Infinity before any was. */
  readonly lastRefusedAt: number;
  /** How long a frame holds a place now (ms, a recent mean; 0 before any has finished). */
  readonly serviceMs: number;
  /** The latency budget (ms): the least wait an open-loop frame may be queued with. */
  readonly budgetMs: number;
  /** The scheduler's clock (ms). */
  readonly now: number;
}

/**
 * Queue it, with how long it is expected to wait and how long it may (Infinity: never dropped for lateness); or
 * refuse it, telling the client when to send again (`paced`: the refusal is not about the lane's turn, the
 * gateway holds all the frames it may, and the scheduler spreads those retries one place interval apart).
 */
export type Admission =
  { queue: true; predictedWaitMs: number; patienceMs: number } | { queue: false; retryAfterMs: number } | { queue: false; paced: true };

/** How often a place frees up now (ms): the service time over the places. */
export function placeIntervalMs(queue: QueueState): number {
  return queue.serviceMs / queue.places;
}

/** The longest predicted wait an open-loop frame is queued with: the budget, or one place interval on a slower host. */
export function freshnessLimitMs(queue: QueueState): number {
  return Math.max(queue.budgetMs, placeIntervalMs(queue));
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
 * when its turn comes round, not at the next free place, so the lane served last waits longest and shares stay
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

/**
 * Queue the frame of `lane` arriving now, or refuse it with when to send again. Read after the arrival's other
 * decisions are applied (`turnsOpenLoop`, `joinsAt`, `supersedes`).
 */
export function admission(queue: QueueState, lane: LaneState): Admission {
  const waitMs = predictWait(queue, lane);
  const alone = lane.inFlight === 0 && lane.waitingCount === 0;
  const limitMs = freshnessLimitMs(queue);
  const taken = (lane.closedLoop && alone) || (waitMs <= limitMs && withinShare(queue, lane));
  if (!taken) {
    const untilTurnMs = turnsAhead(queue, lane) * placeIntervalMs(queue);
    return { queue: false, retryAfterMs: retryAfterFrom(Math.max(waitMs - limitMs, untilTurnMs)) };
  }
  if (queue.waiting >= queue.maxWaiting) return { queue: false, paced: true };
  return { queue: true, predictedWaitMs: waitMs, patienceMs: lane.closedLoop ? Infinity : limitMs };
}

/** A lane that sends while a frame of its own is still out is not waiting for answers: open loop, for good. */
export function turnsOpenLoop(lane: LaneState): boolean {
  return lane.closedLoop && (lane.inFlight > 0 || lane.waitingCount > 0);
}

/**
 * What the frames a lane has waiting may wait, once it turned out to be open loop: an open-loop frame's
 * patience. They were accepted as a closed-loop lane's, with no limit; its next frames are on their way.
 * Without this, 50 cameras starting together each had a first frame queued whatever its wait, and the first
 * 10 s of an overload soak had a p95 of 0.7-1.1 s against 82-111 ms in every later window.
 */
export function openLoopPatienceMs(queue: QueueState): number {
  return freshnessLimitMs(queue);
}

/** The count a lane arriving now joins at, when it starts sending (again); undefined while it is sending. */
export function joinsAt(queue: QueueState, lane: LaneState): number | undefined {
  return sendingNow(queue, lane) ? undefined : joinCount(queue, lane);
}

/** A new frame at a lane whose queue is full pushes its oldest waiting frame out (`superseded`): the newest wins. */
export function supersedes(lane: LaneState, queueLength: number): boolean {
  return lane.waitingCount > 0 && lane.waitingCount >= queueLength;
}

/** A waiting frame as the lateness rule reads it. */
export interface WaitingState {
  /** When it may no longer start (scheduler clock): its arrival plus its patience. */
  readonly lateAt: number;
  /**
   * A hand-out has ended while it could have started (first in its lane, which had room in flight) and it did
   * not: no place was free, or other frames went first.
   */
  readonly passedOver: boolean;
}

/**
 * A waiting frame is dropped (`overloaded`) once a hand-out has passed it over and it has waited its patience:
 * less-served lanes' frames or newer ones went first, and its sender's next frame is on its way. One that has
 * not had its chance at a place did not wait for one: it waited for the end of the event loop's turn (however
 * short its patience: a budget of 0) or for its own lane's frames in flight (a pipelining client on an idle
 * gateway). Without this rule, the frames overtaken most made the tail (50 cameras at 5x overload: queue p95
 * 150 ms; with it, 24 ms, for 4% fewer detections).
 */
export function isLate(waiting: WaitingState, now: number): boolean {
  return waiting.passedOver && now >= waiting.lateAt;
}

/**
 * A lane with no queue (`queueLength` 0) whose frame could not start in this hand-out: `overloaded` when it had
 * room in flight (the places were taken), `superseded` when its own frames in flight held it back.
 */
export function unstartedAnswer(lane: LaneState, maxInFlight: number): 'overloaded' | 'superseded' {
  return lane.inFlight < maxInFlight ? 'overloaded' : 'superseded';
}

/**
 * Whether the next run gets every thread: a frame alone, nothing running, and no frame refused within the last
 * service time. Frames being refused mean more will come before a run ends, and they would wait for the wide
 * run: 50 cameras at 5x overload on 2 cores did 87-119 detections/s in six soaks with a wide run whenever one
 * frame was ready, 106-118 in eight without.
 */
export function runsWide(queue: QueueState, ready: number): boolean {
  const pressed = queue.now - queue.lastRefusedAt <= queue.serviceMs;
  return ready === 1 && queue.running === 0 && !pressed;
}

/** A rule of the policy: what it decides, why, and the setting it reads ('' for none). */
export interface PolicyRule {
  rule: string;
  decides: string;
  why: string;
  setting: string;
}

/** The rules, in the order a frame meets them (docs/ARCHITECTURE.md shows this table). */
export const POLICY_RULES: readonly PolicyRule[] = [
  {
    rule: '`turnsOpenLoop`',
    decides: 'a lane that sends with a frame of its own out is open loop for good; what it had waiting gets open-loop patience',
    why: 'stop-and-wait clients are told apart by counts alone, with no setting',
    setting: '',
  },
  {
    rule: '`joinsAt`',
    decides: 'a lane that starts sending (again) joins at the least-served count of the lanes sending now',
    why: 'it neither starves the others nor waits behind their history',
    setting: '',
  },
  {
    rule: '`supersedes`',
    decides: "a frame arriving at a full lane pushes the lane's oldest waiting frame out: `superseded`",
    why: 'the newest frame is the one worth detecting',
    setting: '`SIGHTLINE_QUEUE_LENGTH`',
  },
  {
    rule: '`admission`: closed loop',
    decides: "a closed-loop lane's only frame is queued, always, and never dropped for lateness",
    why: 'it holds one place, so its wait is bounded by the number of such lanes; refusing it only makes the client upload it again',
    setting: '',
  },
  {
    rule: '`admission`: open loop',
    decides:
      'queued if predicted to start within the freshness limit and the lane is within its share; else `overloaded` with `retryAfterMs` when its turn comes round',
    why: 'a camera sends a fresher frame soon: a frame that would wait only makes every detection older',
    setting: '`SIGHTLINE_QUEUE_BUDGET_MS`',
  },
  {
    rule: '`withinShare`',
    decides: `an open-loop lane may be at most ${SHARE_SLACK} frames ahead of the least-served lane that wants more`,
    why: 'even shares by count for senders that keep sending',
    setting: '',
  },
  {
    rule: '`admission`: full',
    decides: 'a frame that finds the gateway holding all the frames it may is refused, its retry paced one place interval after the last',
    why: 'memory bounded whatever the clients do; retries spread, not all in one millisecond',
    setting: '`SIGHTLINE_MAX_WAITING`',
  },
  {
    rule: '`startsBefore`',
    decides: 'fewer served first; then closed-loop lanes, served longest ago first; then the open-loop lane whose frame is newest',
    why: "a camera's frame passed over is replaced soon; oldest-first made every detection old (queue p95 22 ms against 7)",
    setting: '',
  },
  {
    rule: '`isLate`',
    decides: 'an open-loop frame passed over by a hand-out and waiting the freshness limit is dropped: `overloaded`',
    why: 'the frames overtaken most made the tail (queue p95 150 -> 24 ms)',
    setting: '`SIGHTLINE_QUEUE_BUDGET_MS`',
  },
  {
    rule: '`unstartedAnswer`',
    decides: 'with no queue, a frame that could not start in this hand-out is answered at once',
    why: 'a lane with `queueLength` 0 asked for no waiting',
    setting: '`SIGHTLINE_QUEUE_LENGTH`',
  },
  {
    rule: '`runsWide`',
    decides: 'a frame alone, nothing running and nothing refused lately, runs with every thread; otherwise runs share the threads',
    why: 'lowest latency for one client, highest throughput once frames queue up',
    setting: '`SIGHTLINE_THREADS`, `SIGHTLINE_WORKERS`',
  },
];
