/**
 * Which frame is processed next, across every connection, and which frames are not processed at all.
 *
 * Each connection (and each HTTP request) has a lane: up to `maxInFlight` of its frames are processed at
 * once and up to `queueLength` wait, the newest winning. At most `capacity` frames are processed
 * gateway-wide (decode to reply), and at most `memoryBudgetBytes` of decoded pixels: a large frame waits
 * for room. When a place frees up, the lane served longest ago that has a frame waiting gets it:
 * round-robin by connection, so a client that sends more cannot take more than its share.
 *
 * Places are handed out at the end of the event loop's I/O phase (setImmediate), not as each frame is
 * read: the loop reads sockets in a fixed order, and a place given to the first frame read would go to
 * the same few connections again and again whenever the queue had emptied (measured: 12 to 58 frames per
 * client in one overload soak). An idle gateway still starts a frame within the same turn.
 *
 * A frame is refused on receipt, not after waiting: its wait is predicted from where it would stand in
 * the round-robin order (the waiting frames of the lanes served before its own, its lane's own backlog)
 * and how long a frame holds a place now (ServiceTime). A frame predicted to start within its limit is
 * accepted, and is not dropped for lateness later unless it waits LATE_FACTOR times the budget (the
 * prediction was wrong: a stalled worker); any other is answered `dropped` / `overloaded` at once, before
 * a byte of it is decoded, with `retryAfterMs`: when its lane's turn in that order comes round (or its
 * predicted wait has cleared, whichever is later). The limit is `budgetMs`,
 * except for a lane's only frame (nothing of it in flight or waiting) while one round of the other lanes
 * sending is short (at most SHARE_FACTOR budgets: the lanes that sent within ACTIVE_WINDOW_MS, each
 * holding a place for the mean service time): then it is SHARE_FACTOR budgets. A client that keeps one
 * frame in flight waits at most one round, so among a few such clients it is always served (6
 * stop-and-wait clients: about 45 ms predicted, which the budget alone refused 4 times in 10, each
 * refusal an upload thrown away); among many (50 cameras) the round is long, the budget is strict and
 * the frames detected stay fresh. A camera sending faster than its share learns when its next frame has
 * a place instead of uploading frames to be refused.
 */
import type { DropReason } from '@sightline/shared/protocol';
import { RetryPacer, retryAfterFrom } from './retry-pacer.ts';
import { ServiceTime } from './service-time.ts';

/** An accepted frame still waiting after this many budgets is dropped after all (the prediction failed). */
export const LATE_FACTOR = 4;

/** A lane's only frame is accepted with a wait of up to this many budgets while one round is as short. */
export const SHARE_FACTOR = 3;

/** A lane that sent a frame within this long shares the round (ms): the longest retryAfterMs, a refused client's pause. */
const ACTIVE_WINDOW_MS = 1000;

export interface SchedulerOptions {
  /** Frames processed at once across the gateway, from decode to reply. */
  capacity: number;
  /** Longest predicted wait for a place a frame is accepted with (SHARE_FACTOR times it for a lane's only frame while a round is short). */
  budgetMs: number;
  /** Frames waiting across every lane; past it a new frame is refused outright. */
  maxWaiting: number;
  /** Bytes of decoded pixels of the frames processed at once (Infinity: no limit). */
  memoryBudgetBytes?: number;
  now?: () => number;
}

export interface LaneOptions<T> {
  maxInFlight: number;
  /** Frames that may wait; when a new one arrives at a full lane, the oldest is answered `superseded`. */
  queueLength: number;
  /** Processes one frame and answers it; `waitedMs` is how long it waited in this lane for a place. */
  process: (item: T, waitedMs: number) => Promise<void>;
  /** Answers one frame that will not be processed; `retryAfterMs` when the client should send its next one. */
  drop: (item: T, reason: DropReason, retryAfterMs?: number) => void;
  /** Bytes the frame will need while it is processed (its decoded pixels); 0 when not known. */
  cost?: (item: T) => number;
}

export type PushResult = 'accepted' | 'refused';

/** What became of a single scheduled piece of work (an HTTP request's frame). */
export type ScheduledOutcome<T> = { ran: true; value: T } | { ran: false; reason: DropReason | 'refused'; retryAfterMs: number };

interface Waiting<T> {
  item: T;
  since: number;
  cost: number;
}

/** What the scheduler needs of a lane, whatever its frames are. */
interface ScheduledLane {
  inFlight: number;
  lastTurn: number;
  /** When it last pushed a frame (scheduler clock); -Infinity before its first. */
  lastPushAt: number;
  readonly maxInFlight: number;
  readonly waitingCount: number;
  /** When the oldest waiting frame arrived; undefined when none waits. */
  readonly headSince: number | undefined;
  readonly headCost: number;
  expire(now: number, lateMs: number): void;
  refuseUnstarted(): void;
  startHead(now: number): { done: Promise<void>; cost: number };
  settleIdle(): void;
}

export class Lane<T> implements ScheduledLane {
  readonly waiting: Waiting<T>[] = [];
  inFlight = 0;
  /** The scheduler's turn counter when this lane last started a frame (lower = served longer ago). */
  lastTurn = 0;
  lastPushAt = -Infinity;
  private closedWith: DropReason | undefined;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly scheduler: FairScheduler,
    readonly options: LaneOptions<T>,
  ) {}

  /**
   * Takes a frame: started at once when there is room, queued when it is predicted to start within the
   * budget, otherwise answered `overloaded` with when to retry. `refused` when the gateway already holds
   * `maxWaiting` frames; the caller answers that one (scheduler.retryAfterMs()), every other frame is
   * answered through the lane.
   */
  push(item: T): PushResult {
    if (this.closedWith) {
      this.options.drop(item, this.closedWith);
      return 'accepted';
    }
    if (this.waiting.length > 0 && this.waiting.length >= this.options.queueLength) {
      this.scheduler.forget(1);
      this.options.drop(this.waiting.shift()!.item, 'superseded');
    }
    const late = this.scheduler.refusalFor(this);
    this.lastPushAt = this.scheduler.now();
    if (late !== undefined) {
      this.options.drop(item, 'overloaded', late);
      return 'accepted';
    }
    if (!this.scheduler.admit()) return 'refused';
    this.waiting.push({ item, since: this.scheduler.now(), cost: this.options.cost?.(item) ?? 0 });
    this.scheduler.schedule();
    return 'accepted';
  }

  get maxInFlight(): number {
    return this.options.maxInFlight;
  }

  get waitingCount(): number {
    return this.waiting.length;
  }

  get headSince(): number | undefined {
    return this.waiting[0]?.since;
  }

  get headCost(): number {
    return this.waiting[0]?.cost ?? 0;
  }

  get idle(): boolean {
    return this.inFlight === 0 && this.waiting.length === 0;
  }

  /** Resolves once nothing of this lane is waiting or being processed. */
  whenIdle(): Promise<void> {
    if (this.idle) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Answers every waiting frame with `reason` and every later one too; frames being processed finish.
   * The gateway's drain uses `shutting_down`.
   */
  close(reason: DropReason): void {
    this.closedWith ??= reason;
    this.dropWaiting(reason);
  }

  /** The connection is gone: its waiting frames cannot be answered any more, and are forgotten. */
  detach(): void {
    this.closedWith ??= 'shutting_down';
    this.scheduler.forget(this.waiting.length);
    this.waiting.length = 0;
    this.scheduler.remove(this);
    this.settleIdle();
  }

  /** @internal Answers the waiting frames that have waited `lateMs`: accepted, but the prediction failed. */
  expire(now: number, lateMs: number): void {
    let expired = 0;
    while (this.waiting.length > 0 && now - this.waiting[0]!.since >= lateMs) {
      this.scheduler.forget(1);
      this.options.drop(this.waiting.shift()!.item, 'overloaded', this.scheduler.retryAfterMs());
      expired++;
    }
    if (expired > 0) this.settleIdle();
  }

  /** @internal With no queue, a frame that could not start in this round is answered now. */
  refuseUnstarted(): void {
    if (this.options.queueLength > 0 || this.waiting.length === 0) return;
    const overloaded = this.inFlight < this.options.maxInFlight;
    this.scheduler.forget(this.waiting.length);
    for (const { item } of this.waiting.splice(0)) {
      if (overloaded) this.options.drop(item, 'overloaded', this.scheduler.retryAfterMs());
      else this.options.drop(item, 'superseded');
    }
    this.settleIdle();
  }

  /** @internal Takes the oldest waiting frame out and processes it. */
  startHead(now: number): { done: Promise<void>; cost: number } {
    const { item, since, cost } = this.waiting.shift()!;
    return { done: this.options.process(item, now - since), cost };
  }

  /** @internal */
  settleIdle(): void {
    if (!this.idle) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private dropWaiting(reason: DropReason): void {
    this.scheduler.forget(this.waiting.length);
    for (const { item } of this.waiting.splice(0)) this.options.drop(item, reason);
    this.settleIdle();
  }
}

export class FairScheduler {
  private readonly lanes = new Set<ScheduledLane>();
  private running = 0;
  private waitingTotal = 0;
  private memoryInUse = 0;
  private turn = 0;
  private expiryTimer: ReturnType<typeof setTimeout> | undefined;
  private expiryAt = Infinity;
  private pumpScheduled = false;
  private readonly service = new ServiceTime();
  private readonly pacer = new RetryPacer();
  readonly now: () => number;

  constructor(private readonly options: SchedulerOptions) {
    this.now = options.now ?? (() => performance.now());
  }

  lane<T>(options: LaneOptions<T>): Lane<T> {
    const lane = new Lane<T>(this, options);
    this.lanes.add(lane);
    return lane;
  }

  /**
   * One frame that is not part of a connection (an HTTP request): it waits for a place like any lane's
   * frame, so it is refused, dropped for lateness or started by the same rules. `work` may throw.
   */
  runOnce<T>(work: (waitedMs: number) => Promise<T>, cost = 0): Promise<ScheduledOutcome<T>> {
    return new Promise<ScheduledOutcome<T>>((resolve, reject) => {
      const lane = this.lane<null>({
        maxInFlight: 1,
        queueLength: 1,
        cost: () => cost,
        process: async (_item, waitedMs) => {
          try {
            resolve({ ran: true, value: await work(waitedMs) });
          } catch (error) {
            reject(error);
          } finally {
            lane.detach();
          }
        },
        drop: (_item, reason, retryAfterMs) => {
          lane.detach();
          resolve({ ran: false, reason, retryAfterMs: retryAfterMs ?? this.retryAfterMs() });
        },
      });
      if (lane.push(null) === 'refused') {
        lane.detach();
        resolve({ ran: false, reason: 'refused', retryAfterMs: this.retryAfterMs() });
      }
    });
  }

  /** Frames being processed and frames waiting, gateway-wide. */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waitingTotal };
  }

  /** How long a frame holds a place now, ms (the estimate predictions use). */
  get serviceMs(): number {
    return this.service.meanMs;
  }

  /**
   * When a refused client should send again, for a refusal that is not about one lane's place in the
   * order (the gateway holds maxWaiting frames, a frame expired): one slot after the others refused.
   */
  retryAfterMs(): number {
    const slotMs = this.service.meanMs / this.options.capacity;
    return this.pacer.next(this.now(), slotMs, slotMs);
  }

  /**
   * @internal Undefined when a frame of `lane` arriving now is predicted to start within the budget;
   * otherwise when its client should send again.
   */
  refusalFor(lane: ScheduledLane): number | undefined {
    const waitMs = this.predictWait(lane);
    if (waitMs <= this.options.budgetMs) return undefined;
    const limitMs = this.withinShortRound(lane) ? this.options.budgetMs * SHARE_FACTOR : this.options.budgetMs;
    if (waitMs <= limitMs) return undefined;
    const untilTurnMs = (this.turnsAhead(lane) * this.service.meanMs) / this.options.capacity;
    return retryAfterFrom(Math.max(waitMs - limitMs, untilTurnMs));
  }

  /**
   * @internal How many lanes sending now (within ACTIVE_WINDOW_MS) come before `lane` in the round-robin
   * order: served longer ago, or as long ago and registered earlier. A refused client is told to come back
   * when its turn comes round, not at the next free slot: slots handed out first come, first served spread
   * the clients' pauses at random (of 50 cameras, one held 1 s, the next 20 ms), and their shares of the
   * detections with them; by turn, the lane served last waits longest (docs/RELIABILITY.md, Fairness).
   */
  turnsAhead(lane: ScheduledLane): number {
    const since = this.now() - ACTIVE_WINDOW_MS;
    let ahead = 0;
    let registeredBefore = true;
    for (const other of this.lanes) {
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
   * @internal Whether a frame of `lane` arriving now is its only one, and one round of the other lanes
   * sending, each holding a place for the mean service time, takes at most SHARE_FACTOR budgets.
   */
  withinShortRound(lane: ScheduledLane): boolean {
    if (lane.inFlight > 0 || lane.waitingCount > 0) return false;
    const since = this.now() - ACTIVE_WINDOW_MS;
    let others = 0;
    for (const other of this.lanes) if (other !== lane && other.lastPushAt >= since) others++;
    return (others * this.service.meanMs) / this.options.capacity <= this.options.budgetMs * SHARE_FACTOR;
  }

  /**
   * How long a frame of `lane` arriving now would wait for a place: the frames that start before it under
   * round-robin (one per lane served before this one, then, for each of its own frames already waiting, a
   * whole round), beyond the places free now, each taking one place's share of the service time.
   */
  predictWait(lane: ScheduledLane): number {
    const free = this.options.capacity - this.running;
    let lanesBefore = 0;
    let lanesWaiting = 0;
    for (const other of this.lanes) {
      if (other === lane || other.waitingCount === 0) continue;
      lanesWaiting++;
      if (other.lastTurn < lane.lastTurn || (other.lastTurn === lane.lastTurn && other.headSince !== undefined)) lanesBefore++;
    }
    const ahead = lanesBefore + lane.waitingCount * (lanesWaiting + 1);
    if (ahead < free) return 0;
    return ((ahead - free + 1) * this.service.meanMs) / this.options.capacity;
  }

  /** @internal A lane wants to queue one frame. */
  admit(): boolean {
    if (this.waitingTotal >= this.options.maxWaiting) return false;
    this.waitingTotal++;
    return true;
  }

  /** @internal Frames left the waiting state without starting. */
  forget(count: number): void {
    this.waitingTotal -= count;
  }

  /** @internal */
  remove(lane: ScheduledLane): void {
    this.lanes.delete(lane);
  }

  /** Hands out places once the frames read in this turn of the event loop are all queued. */
  schedule(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  /** Starts waiting frames while there is room, least recently served lane first. */
  private pump(): void {
    const now = this.now();
    const lateMs = this.options.budgetMs * LATE_FACTOR;
    for (const lane of this.lanes) lane.expire(now, lateMs);
    while (this.running < this.options.capacity) {
      const lane = this.nextLane();
      if (!lane) break;
      this.start(lane, now);
    }
    for (const lane of this.lanes) lane.refuseUnstarted();
    this.scheduleExpiry(this.earliestDeadline(lateMs));
  }

  private nextLane(): ScheduledLane | undefined {
    const room = (this.options.memoryBudgetBytes ?? Infinity) - this.memoryInUse;
    let best: ScheduledLane | undefined;
    for (const lane of this.lanes) {
      if (lane.headSince === undefined || lane.inFlight >= lane.maxInFlight) continue;
      // A frame larger than the room left waits for frames to finish; alone it always fits (the pixel limit
      // keeps one frame within the budget).
      if (lane.headCost > room && this.running > 0) continue;
      if (!best || lane.lastTurn < best.lastTurn) best = lane;
    }
    return best;
  }

  private start(lane: ScheduledLane, now: number): void {
    this.waitingTotal--;
    this.running++;
    lane.inFlight++;
    lane.lastTurn = ++this.turn;
    const { done, cost } = lane.startHead(now);
    this.memoryInUse += cost;
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      this.service.record(this.now() - now);
      this.running--;
      this.memoryInUse -= cost;
      lane.inFlight--;
      lane.settleIdle();
      this.schedule();
    };
    // process() answers its own failures; a rejection here must not leak the place.
    done.then(finish, finish);
  }

  private earliestDeadline(lateMs: number): number {
    let earliest = Infinity;
    for (const lane of this.lanes) {
      if (lane.headSince !== undefined) earliest = Math.min(earliest, lane.headSince + lateMs);
    }
    return earliest;
  }

  private scheduleExpiry(at: number): void {
    if (at === this.expiryAt) return;
    clearTimeout(this.expiryTimer);
    this.expiryAt = at;
    if (at === Infinity) return;
    this.expiryTimer = setTimeout(
      () => {
        this.expiryAt = Infinity;
        // Not a socket read: nothing else of this turn competes, so no need to wait for its end.
        this.pump();
      },
      Math.max(0, at - this.now()),
    );
    // A waiting frame must not keep the process alive on its own (the drain answers it).
    this.expiryTimer.unref?.();
  }
}
