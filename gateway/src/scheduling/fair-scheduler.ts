/**
 * The gateway's one queue: which frame runs next, across every connection, on which place of the executor
 * (the inference workers), and which frames are not processed at all.
 *
 * Each connection (and each HTTP request) has a lane: up to `maxInFlight` of its frames are processed at
 * once and up to `queueLength` wait, the newest winning. Frames start straight on the executor's places
 * (a worker), and the decodes of the frames processed at once hold at most `memoryBudgetBytes`: a large frame
 * waits for room. When a place frees up, the lane served least that has a frame waiting gets it: round-robin
 * by connection, so a client that sends more cannot take more than its share; among lanes served as often, the
 * order of admission-policy.ts's `startsBefore` (closed-loop lanes, then the newest open-loop frame). Where the
 * executor runs several frames of one model as a batch, the frames that would start next in that order are
 * handed over together.
 *
 * Places are handed out at the end of the event loop's I/O phase (setImmediate), not as each frame is
 * read: the loop reads sockets in a fixed order, and a place given to the first frame read would go to
 * the same few connections again and again whenever the queue had emptied (measured: 12 to 58 frames per
 * client in one overload soak). An idle gateway still starts a frame within the same turn.
 *
 * Whether an arriving frame is queued at all is the admission policy's call (admission/admission-policy.ts),
 * made on receipt from this queue's state. An accepted frame is dropped later only if a hand-out has passed it
 * over while it could have started and it has waited too long: a closed-loop lane's LATE_FACTOR times its
 * prediction (the prediction was wrong: a stalled worker), an open-loop lane's once it has waited the freshness
 * limit itself (those it had waiting when it turned out to be open loop too): less-served lanes' frames or newer
 * ones went first, and its sender's next frame is on its way. Without that, the frames overtaken most made the
 * tail (50 cameras at 5x overload: queue p95 150 ms; with it, 24 ms, for 4% fewer detections).
 */
import type { DropReason } from '@sightline/shared/protocol';
import {
  admission,
  freshnessLimitMs,
  joinCount,
  predictWait,
  sendingNow,
  startsBefore,
  type LaneState,
  type QueueState,
} from '../admission/admission-policy.ts';
import { RetryPacer } from '../admission/retry-pacer.ts';
import { ServiceTime } from './service-time.ts';

/**
 * An accepted frame still waiting this many times longer than it was expected to (its predicted wait, and
 * at least the freshness limit) is dropped after all: the prediction failed (a stalled worker).
 */
export const LATE_FACTOR = 4;

/** A place to run frames on, as the executor hands it out; good until the executor's next call. */
export interface RunPlace {
  readonly slot: number;
  /** The run gets every thread (a frame alone): nothing else starts beside it. */
  readonly wide: boolean;
}

/** What runs the frames: the inference workers, or a stand-in in tests. It has no queue of its own. */
export interface FrameExecutor<T, R> {
  /** Places in all: frames (or batches) run side by side at most. */
  readonly places: number;
  /** Places a frame could start on now. */
  readonly freePlaces: number;
  /**
   * Where the next run starts when `waiting` frames could start, or undefined when none may start now.
   * `pressed`: frames are being refused, so more will come before a run ends (a frame alone is then no reason
   * to give it every thread).
   */
  placeFor(waiting: number, pressed: boolean): RunPlace | undefined;
  /** How many frames may run together with `first` (1: alone). */
  batchLimit(first: T): number;
  /** Whether `other` may run in one batch with `first` (the same model). */
  batchesWith(first: T, other: T): boolean;
  /** Runs the frames on the place; resolves with each frame's result or error, in order, and never rejects. */
  run(place: RunPlace, items: readonly T[]): Promise<ReadonlyArray<R | Error>>;
  /** Called whenever a place frees up or a new one comes (a replaced worker). */
  onFree(listener: () => void): void;
}

export interface SchedulerOptions {
  /** Longest predicted wait for a place a frame is accepted with (the admission policy's limit). */
  budgetMs: number;
  /** Frames waiting across every lane; past it a new frame is refused outright. */
  maxWaiting: number;
  /** Bytes of decoded pixels of the frames processed at once (Infinity: no limit). */
  memoryBudgetBytes?: number;
  now?: () => number;
}

export interface LaneOptions<T, R> {
  maxInFlight: number;
  /** Frames that may wait; when a new one arrives at a full lane, the oldest is answered `superseded`. */
  queueLength: number;
  /** Answers a frame that ran: its result or error, and when it started (the scheduler's clock). */
  complete: (item: T, outcome: R | Error, startedAt: number) => void;
  /** Answers one frame that will not be processed; `retryAfterMs` when the client should send its next one. */
  drop: (item: T, reason: DropReason, retryAfterMs?: number) => void;
  /** Bytes the frame will need while it is processed (its decoded pixels); 0 when not known. */
  cost?: (item: T) => number;
}

export type PushResult = 'accepted' | 'refused';

interface Waiting<T> {
  item: T;
  since: number;
  /** When it is dropped as late if it has not started (scheduler clock). */
  lateAt: number;
  /**
   * A hand-out has ended while it could have started (first in its lane, which had room in flight) and it did
   * not: no place was free, or other frames went first. Only such a frame can be late: one that has not had its
   * chance at a place did not wait for one, it waited for the end of the event loop's turn (however short its
   * patience: a budget of 0) or for its own lane's frames in flight (a pipelining client on an idle gateway).
   */
  passedOver: boolean;
  cost: number;
}

export class Lane<T, R> implements LaneState {
  readonly waiting: Waiting<T>[] = [];
  inFlight = 0;
  served = 0;
  lastTurn = 0;
  lastPushAt = -Infinity;
  lastRefusedAt = -Infinity;
  closedLoop = true;
  private closedWith: DropReason | undefined;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly scheduler: FairScheduler<T, R>,
    readonly options: LaneOptions<T, R>,
  ) {}

  /**
   * Takes a frame: queued when the admission policy accepts it (started at the end of this turn when there
   * is room), otherwise answered `overloaded` with when to retry. `refused` when the gateway already holds
   * `maxWaiting` frames; the caller answers that one (scheduler.retryAfterMs()), every other frame is
   * answered through the lane.
   */
  push(item: T): PushResult {
    if (this.closedWith) {
      this.options.drop(item, this.closedWith);
      return 'accepted';
    }
    const state = this.scheduler.state;
    // A sender that sends while a frame of its own is still out is not waiting for answers: open loop, for good.
    if (this.closedLoop && (this.inFlight > 0 || this.waiting.length > 0)) this.turnOpenLoop(state);
    if (!sendingNow(state, this)) this.served = joinCount(state, this);
    if (this.waiting.length > 0 && this.waiting.length >= this.options.queueLength) {
      this.scheduler.forget(1);
      this.options.drop(this.waiting.shift()!.item, 'superseded');
    }
    const decision = admission(this.scheduler.state, this);
    this.lastPushAt = state.now;
    if (!decision.queue) {
      this.markRefused(state.now);
      this.options.drop(item, 'overloaded', decision.retryAfterMs);
      return 'accepted';
    }
    if (!this.scheduler.admit()) {
      this.markRefused(state.now);
      return 'refused';
    }
    this.waiting.push({
      item,
      since: state.now,
      lateAt: state.now + this.patienceMs(state, decision.predictedWaitMs),
      passedOver: false,
      cost: this.options.cost?.(item) ?? 0,
    });
    this.scheduler.schedule();
    return 'accepted';
  }

  /**
   * How long a frame accepted now may wait before it is answered as late. An open-loop frame: the freshness
   * limit. A closed-loop lane's only frame: LATE_FACTOR times what it was promised, at least a whole service
   * time (a prediction in slots is missed by more than one when another process takes the cores for a moment,
   * which is no stalled worker), and no limit while nothing was promised (no frame finished yet to predict
   * from: a prediction of 0 cannot turn out wrong, and a limit of 0 would refuse a stop-and-wait client for
   * lateness on an idle gateway).
   */
  private patienceMs(state: QueueState, predictedWaitMs: number): number {
    const limitMs = freshnessLimitMs(state);
    if (!this.closedLoop) return limitMs;
    const promisedMs = Math.max(limitMs, predictedWaitMs, state.serviceMs);
    return promisedMs > 0 ? LATE_FACTOR * promisedMs : Infinity;
  }

  /**
   * The frames it has waiting were accepted as a closed-loop lane's, with a closed-loop lane's patience; they
   * get an open-loop lane's now (dropped once they have waited the freshness limit), its next frames are on
   * their way. Without this, 50 cameras starting together each had a first frame queued whatever its wait,
   * and the first 10 s of an overload soak had a p95 of 0.7-1.1 s against 82-111 ms in every later window.
   */
  private turnOpenLoop(state: QueueState): void {
    this.closedLoop = false;
    if (this.waiting.length === 0) return;
    const patienceMs = this.patienceMs(state, 0);
    for (const waiting of this.waiting) waiting.lateAt = Math.min(waiting.lateAt, waiting.since + patienceMs);
    this.expire(state.now);
    // Whatever still waits turns late sooner than the expiry timer was set for.
    this.scheduler.schedule();
  }

  get waitingCount(): number {
    return this.waiting.length;
  }

  /** When the earliest of its waiting frames turns late; undefined when none waits. */
  get nextLateAt(): number | undefined {
    let earliest: number | undefined;
    for (const { lateAt } of this.waiting) earliest = earliest === undefined ? lateAt : Math.min(earliest, lateAt);
    return earliest;
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

  /** @internal Whether its head frame may start now: it has one waiting, and room for another in flight. */
  get ready(): boolean {
    return this.waiting.length > 0 && this.inFlight < this.options.maxInFlight;
  }

  /** @internal Answers the waiting frames that turned late: accepted, but the prediction failed. */
  expire(now: number): void {
    const isLate = (waiting: Waiting<T>) => waiting.passedOver && now >= waiting.lateAt;
    const late = this.waiting.filter(isLate);
    if (late.length === 0) return;
    this.waiting.splice(0, this.waiting.length, ...this.waiting.filter((waiting) => !isLate(waiting)));
    this.scheduler.forget(late.length);
    this.markRefused(now);
    for (const { item } of late) this.options.drop(item, 'overloaded', this.scheduler.retryAfterMs());
    this.settleIdle();
  }

  /** @internal With no queue, a frame that could not start in this round is answered now. */
  refuseUnstarted(): void {
    if (this.options.queueLength > 0 || this.waiting.length === 0) return;
    const overloaded = this.inFlight < this.options.maxInFlight;
    if (overloaded) this.markRefused(this.scheduler.now());
    this.scheduler.forget(this.waiting.length);
    for (const { item } of this.waiting.splice(0)) {
      if (overloaded) this.options.drop(item, 'overloaded', this.scheduler.retryAfterMs());
      else this.options.drop(item, 'superseded');
    }
    this.settleIdle();
  }

  /** @internal A hand-out ended without starting its first frame, though it could have started. */
  passOver(): void {
    if (this.ready) this.waiting[0]!.passedOver = true;
  }

  /** @internal Takes the oldest waiting frame out. */
  takeHead(): Waiting<T> {
    return this.waiting.shift()!;
  }

  /** @internal */
  settleIdle(): void {
    if (!this.idle) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private markRefused(at: number): void {
    this.lastRefusedAt = at;
    this.scheduler.noteRefused(at);
  }

  private dropWaiting(reason: DropReason): void {
    this.scheduler.forget(this.waiting.length);
    for (const { item } of this.waiting.splice(0)) this.options.drop(item, reason);
    this.settleIdle();
  }
}

/** One frame handed to the executor, and what its completion gives back. */
interface Started<T, R> {
  lane: Lane<T, R>;
  item: T;
  cost: number;
}

export class FairScheduler<T, R> {
  private readonly lanes = new Set<Lane<T, R>>();
  private runs = 0;
  private waitingTotal = 0;
  private memoryInUse = 0;
  private turn = 0;
  private expiryTimer: ReturnType<typeof setTimeout> | undefined;
  private expiryAt = Infinity;
  private pumpScheduled = false;
  private lastRefusedAt = -Infinity;
  private readonly service = new ServiceTime();
  private readonly pacer = new RetryPacer();
  readonly now: () => number;

  constructor(
    private readonly options: SchedulerOptions,
    private readonly executor: FrameExecutor<T, R>,
  ) {
    this.now = options.now ?? (() => performance.now());
    executor.onFree(() => this.schedule());
  }

  lane(options: LaneOptions<T, R>): Lane<T, R> {
    const lane = new Lane<T, R>(this, options);
    this.lanes.add(lane);
    return lane;
  }

  /** Runs (one frame or one batch each) on the executor's places, and frames waiting, gateway-wide. */
  get load(): { running: number; waiting: number } {
    return { running: this.runs, waiting: this.waitingTotal };
  }

  /** How long a frame holds a place now, ms (the estimate predictions use). */
  get serviceMs(): number {
    return this.service.meanMs;
  }

  /** What the admission policy reads. */
  get state(): QueueState {
    return {
      lanes: this.lanes,
      freePlaces: this.executor.freePlaces,
      places: this.executor.places,
      serviceMs: this.service.meanMs,
      budgetMs: this.options.budgetMs,
      now: this.now(),
    };
  }

  /**
   * When a refused client should send again, for a refusal that is not about one lane's place in the
   * order (the gateway holds maxWaiting frames, a frame expired): one slot after the others refused.
   */
  retryAfterMs(): number {
    const slotMs = this.service.meanMs / this.executor.places;
    return this.pacer.next(this.now(), slotMs, slotMs);
  }

  /** How long a frame of `lane` arriving now would wait for a place (admission-policy.ts). */
  predictWait(lane: Lane<T, R>): number {
    return predictWait(this.state, lane);
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
  remove(lane: Lane<T, R>): void {
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

  /** Starts waiting frames while the executor has a place, least recently served lane first. */
  private pump(): void {
    const now = this.now();
    for (const lane of this.lanes) lane.expire(now);
    for (;;) {
      const lane = this.nextLane();
      if (!lane) break;
      const place = this.executor.placeFor(this.readyCount(), this.pressed(now));
      if (!place) break;
      this.start(place, this.batchFrom(lane), now);
    }
    for (const lane of this.lanes) lane.passOver();
    for (const lane of this.lanes) lane.refuseUnstarted();
    this.scheduleExpiry(this.earliestLateAt());
  }

  /** @internal A frame was refused: on receipt, late, or with the gateway full. */
  noteRefused(at: number): void {
    this.lastRefusedAt = at;
  }

  /** A frame was refused within the last service time: senders are asking for more than the places give. */
  private pressed(now: number): boolean {
    return now - this.lastRefusedAt <= this.service.meanMs;
  }

  private get room(): number {
    return (this.options.memoryBudgetBytes ?? Infinity) - this.memoryInUse;
  }

  /** Frames that could start now: the heads of the lanes with room in flight. */
  private readyCount(): number {
    let ready = 0;
    for (const lane of this.lanes) if (lane.ready) ready++;
    return ready;
  }

  /** The lane first in the serving order whose head frame may start now and fits the memory left. */
  private nextLane(): Lane<T, R> | undefined {
    let best: Lane<T, R> | undefined;
    for (const lane of this.lanes) {
      if (!lane.ready || !this.fits(lane.headCost)) continue;
      // Lanes are visited in registration order, so a tie goes to the one registered first.
      if (!best || startsBefore(lane, best, false)) best = lane;
    }
    return best;
  }

  /** A frame larger than the room left waits for frames to finish; alone it always fits (the pixel limit keeps one frame within the budget). */
  private fits(cost: number): boolean {
    return cost <= this.room || this.memoryInUse === 0;
  }

  /** The head of `first`, and the frames that would start next in round-robin order that may run in one batch with it. */
  private batchFrom(first: Lane<T, R>): Started<T, R>[] {
    const batch = [this.take(first)];
    const limit = this.executor.batchLimit(batch[0]!.item);
    if (limit <= 1) return batch;
    const registered = [...this.lanes];
    const others = registered
      .filter((lane) => lane !== first)
      .sort((a, b) => (startsBefore(a, b, registered.indexOf(a) < registered.indexOf(b)) ? -1 : 1));
    for (const lane of others) {
      if (batch.length >= limit) break;
      if (!lane.ready || !this.fits(lane.headCost) || !this.executor.batchesWith(batch[0]!.item, lane.waiting[0]!.item)) continue;
      batch.push(this.take(lane));
    }
    return batch;
  }

  private take(lane: Lane<T, R>): Started<T, R> {
    const { item, cost } = lane.takeHead();
    this.waitingTotal--;
    this.memoryInUse += cost;
    lane.inFlight++;
    lane.served++;
    lane.lastTurn = ++this.turn;
    return { lane, item, cost };
  }

  private start(place: RunPlace, batch: Started<T, R>[], startedAt: number): void {
    this.runs++;
    const finish = (outcomes: ReadonlyArray<R | Error>) => {
      this.runs--;
      this.service.record((this.now() - startedAt) / batch.length);
      batch.forEach(({ lane, item, cost }, i) => {
        this.memoryInUse -= cost;
        lane.inFlight--;
        lane.options.complete(item, outcomes[i] ?? new Error('the executor gave no result for this frame'), startedAt);
        lane.settleIdle();
      });
      this.schedule();
    };
    this.executor
      .run(
        place,
        batch.map((started) => started.item),
      )
      .then(finish, (error: unknown) => finish(batch.map(() => (error instanceof Error ? error : new Error(String(error))))));
  }

  private earliestLateAt(): number {
    let earliest = Infinity;
    for (const lane of this.lanes) earliest = Math.min(earliest, lane.nextLateAt ?? Infinity);
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
