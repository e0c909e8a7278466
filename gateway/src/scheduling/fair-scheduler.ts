/**
 * The gateway's one queue, as mechanism: lanes of waiting frames, the executor's places, and the hand-out that
 * starts frames on them. Every decision - whether an arriving frame is queued, which waiting frame starts next,
 * when a waiting frame is dropped, whether a run gets every thread - is the frame policy's
 * (admission/frame-policy.ts), read from this queue's state.
 *
 * Each connection (and each HTTP request) has a lane: up to `maxInFlight` of its frames are processed at
 * once and up to `queueLength` wait. Frames start straight on the executor's places (a worker), and the
 * decodes of the frames processed at once hold at most `memoryBudgetBytes`: a large frame waits for room.
 * Where the executor runs several frames of one model as a batch, the frames that would start next are handed
 * over together.
 *
 * Places are handed out at the end of the event loop's I/O phase (setImmediate), not as each frame is
 * read: the loop reads sockets in a fixed order, and a place given to the first frame read would go to
 * the same few connections again and again whenever the queue had emptied (measured: 12 to 58 frames per
 * client in one overload soak). An idle gateway still starts a frame within the same turn.
 */
import type { DropReason } from '@sightline/shared/protocol';
import {
  admission,
  isLate,
  joinsAt,
  openLoopPatienceMs,
  placeIntervalMs,
  predictWait,
  runsWide,
  startsBefore,
  supersedes,
  turnsOpenLoop,
  unstartedAnswer,
  type LaneState,
  type QueueState,
  type WaitingState,
} from '../admission/frame-policy.ts';
import { RetryPacer } from '../admission/retry-pacer.ts';
import type { Place } from '../inference/inference-schedule.ts';
import { ServiceTime } from './service-time.ts';

/** What runs the frames: the inference workers, or a stand-in in tests. It has no queue of its own. */
export interface FrameExecutor<T, R> {
  /** Places in all: frames (or batches) run side by side at most. */
  readonly places: number;
  /** Places a frame could start on now. */
  readonly freePlaces: number;
  /** Where the next run starts, with every thread when `wide` and a place allows it; undefined when none may start now. */
  placeFor(wide: boolean): Place | undefined;
  /** How many frames may run together with `first` (1: alone). */
  batchLimit(first: T): number;
  /** Whether `other` may run in one batch with `first` (the same model). */
  batchesWith(first: T, other: T): boolean;
  /** Runs the frames on the place; resolves with each frame's result or error, in order, and never rejects. */
  run(place: Place, items: readonly T[]): Promise<ReadonlyArray<R | Error>>;
  /** Called whenever a place frees up or a new one comes (a replaced worker). */
  onFree(listener: () => void): void;
}

export interface SchedulerOptions {
  /** Longest predicted wait for a place an open-loop frame is accepted with (the frame policy's limit). */
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

interface Waiting<T> extends WaitingState {
  item: T;
  since: number;
  lateAt: number;
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
   * Takes a frame: queued when the frame policy accepts it (started at the end of this turn when there is
   * room), otherwise answered through the lane's `drop`: every refusal is answered here, one way.
   */
  push(item: T): void {
    if (this.closedWith) {
      this.options.drop(item, this.closedWith);
      return;
    }
    let state = this.scheduler.state;
    if (turnsOpenLoop(this)) this.turnOpenLoop(state);
    this.served = joinsAt(state, this) ?? this.served;
    if (supersedes(this, this.options.queueLength)) {
      this.scheduler.forget(1);
      this.options.drop(this.waiting.shift()!.item, 'superseded');
    }
    state = this.scheduler.state;
    const decision = admission(state, this);
    this.lastPushAt = state.now;
    if (!decision.queue) {
      this.markRefused(state.now);
      this.options.drop(item, 'overloaded', 'paced' in decision ? this.scheduler.retryAfterMs() : decision.retryAfterMs);
      return;
    }
    this.scheduler.queued();
    this.waiting.push({
      item,
      since: state.now,
      lateAt: state.now + decision.patienceMs,
      passedOver: false,
      cost: this.options.cost?.(item) ?? 0,
    });
    this.scheduler.schedule();
  }

  /** It turned out to be open loop: what it has waiting gets an open-loop frame's patience. */
  private turnOpenLoop(state: QueueState): void {
    this.closedLoop = false;
    if (this.waiting.length === 0) return;
    const patienceMs = openLoopPatienceMs(state);
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

  /** @internal Answers the waiting frames the policy finds late. */
  expire(now: number): void {
    const late = this.waiting.filter((waiting) => isLate(waiting, now));
    if (late.length === 0) return;
    this.waiting.splice(0, this.waiting.length, ...this.waiting.filter((waiting) => !isLate(waiting, now)));
    this.scheduler.forget(late.length);
    this.markRefused(now);
    for (const { item } of late) this.options.drop(item, 'overloaded', this.scheduler.retryAfterMs());
    this.settleIdle();
  }

  /** @internal With no queue, a frame that could not start in this hand-out is answered now. */
  refuseUnstarted(): void {
    if (this.options.queueLength > 0 || this.waiting.length === 0) return;
    const answer = unstartedAnswer(this, this.options.maxInFlight);
    if (answer === 'overloaded') this.markRefused(this.scheduler.now());
    this.scheduler.forget(this.waiting.length);
    for (const { item } of this.waiting.splice(0)) {
      if (answer === 'overloaded') this.options.drop(item, 'overloaded', this.scheduler.retryAfterMs());
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
  private waiting = 0;
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
    return { running: this.runs, waiting: this.waiting };
  }

  /** How long a frame holds a place now, ms (the estimate predictions use). */
  get serviceMs(): number {
    return this.service.meanMs;
  }

  /** What the frame policy reads. */
  get state(): QueueState {
    return {
      lanes: this.lanes,
      freePlaces: this.executor.freePlaces,
      places: this.executor.places,
      running: this.runs,
      waiting: this.waiting,
      maxWaiting: this.options.maxWaiting,
      lastRefusedAt: this.lastRefusedAt,
      serviceMs: this.service.meanMs,
      budgetMs: this.options.budgetMs,
      now: this.now(),
    };
  }

  /**
   * When a refused client should send again, for a refusal that is not about one lane's place in the
   * order (the gateway holds maxWaiting frames, a frame expired): one place interval after the others refused.
   */
  retryAfterMs(): number {
    const intervalMs = placeIntervalMs(this.state);
    return this.pacer.next(this.now(), intervalMs, intervalMs);
  }

  /** How long a frame of `lane` arriving now would wait for a place (frame-policy.ts). */
  predictWait(lane: Lane<T, R>): number {
    return predictWait(this.state, lane);
  }

  /** @internal A lane queued one frame. */
  queued(): void {
    this.waiting++;
  }

  /** @internal Frames left the waiting state without starting. */
  forget(count: number): void {
    this.waiting -= count;
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
      const place = this.executor.placeFor(runsWide(this.state, this.readyCount()));
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
    this.waiting--;
    this.memoryInUse += cost;
    lane.inFlight++;
    lane.served++;
    lane.lastTurn = ++this.turn;
    return { lane, item, cost };
  }

  private start(place: Place, batch: Started<T, R>[], startedAt: number): void {
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
