/**
 * Which frame is processed next, across every connection, and which frames are not processed at all.
 *
 * Each connection (and each HTTP request) has a lane: up to `maxInFlight` of its frames are processed at
 * once and up to `queueLength` wait, the newest winning. At most `capacity` frames are processed
 * gateway-wide (decode to reply). When a place frees up, the lane served longest ago that has a frame
 * waiting gets it: round-robin by connection, so a client that sends more cannot take more than its share.
 *
 * Places are handed out at the end of the event loop's I/O phase (setImmediate), not as each frame is
 * read: the loop reads sockets in a fixed order, and a place given to the first frame read would go to
 * the same few connections again and again whenever the queue had emptied (measured: 12 to 58 frames per
 * client in one overload soak). An idle gateway still starts a frame within the same turn.
 *
 * Under overload most frames cannot be processed at all, and the only question is how late the others
 * are. A frame that has not started within `budgetMs` is answered at once (`dropped` / `overloaded`)
 * instead of being processed late: a live client would rather send its next frame than get an answer a
 * second old. Frames are refused before anything is decoded, so refusing costs next to nothing.
 *
 * A lane can only be served while it has a frame waiting, and cameras send on a fixed period: when the
 * places free up at the same moments of every frame interval (steady processing times), the connections
 * whose frames wait at those moments are served every time and the others hardly ever (measured: 296 to
 * 612 frames per client over a 300-s soak). So a lane that has missed a whole round of turns (more turns
 * since it was last served than there are lanes) keeps its frame waiting `BEHIND_BUDGET_FACTOR` times as
 * long: it is then the least recently served lane at the next free place, which takes it. Only the frames
 * of lanes behind their share wait longer, and only until that next place.
 */
import type { DropReason } from '@sightline/shared/protocol';

/** How much longer than the budget the frame of a lane behind its share may wait (see above). */
export const BEHIND_BUDGET_FACTOR = 4;

export interface SchedulerOptions {
  /** Frames processed at once across the gateway, from decode to reply. */
  capacity: number;
  /** Longest a frame may wait for a place before it is answered `overloaded` instead. */
  budgetMs: number;
  /** Frames waiting across every lane; past it a new frame is refused outright. */
  maxWaiting: number;
  now?: () => number;
}

export interface LaneOptions<T> {
  maxInFlight: number;
  /** Frames that may wait; when a new one arrives at a full lane, the oldest is answered `superseded`. */
  queueLength: number;
  /** Processes one frame and answers it; `waitedMs` is how long it waited in this lane for a place. */
  process: (item: T, waitedMs: number) => Promise<void>;
  /** Answers one frame that will not be processed. */
  drop: (item: T, reason: DropReason) => void;
}

export type PushResult = 'accepted' | 'refused';

/** What became of a single scheduled piece of work (an HTTP request's frame). */
export type ScheduledOutcome<T> = { ran: true; value: T } | { ran: false; reason: DropReason | 'refused' };

interface Waiting<T> {
  item: T;
  since: number;
}

/** What the scheduler needs of a lane, whatever its frames are. */
interface ScheduledLane {
  inFlight: number;
  lastTurn: number;
  readonly maxInFlight: number;
  /** When the oldest waiting frame arrived; undefined when none waits. */
  readonly headSince: number | undefined;
  expire(now: number, budgetMs: number): void;
  refuseUnstarted(): void;
  startHead(now: number): Promise<void>;
  settleIdle(): void;
}

export class Lane<T> implements ScheduledLane {
  readonly waiting: Waiting<T>[] = [];
  inFlight = 0;
  /** The scheduler's turn counter when this lane last started a frame (lower = served longer ago). */
  lastTurn = 0;
  private closedWith: DropReason | undefined;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly scheduler: FairScheduler,
    readonly options: LaneOptions<T>,
  ) {}

  /**
   * Takes a frame: started at once when there is room, else queued. `refused` when the gateway already
   * holds `maxWaiting` frames; the caller answers that one, every other frame is answered through the lane.
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
    if (!this.scheduler.admit()) return 'refused';
    this.waiting.push({ item, since: this.scheduler.now() });
    this.scheduler.schedule();
    return 'accepted';
  }

  get maxInFlight(): number {
    return this.options.maxInFlight;
  }

  get headSince(): number | undefined {
    return this.waiting[0]?.since;
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

  /** @internal Answers the waiting frames that did not start within the budget. */
  expire(now: number, budgetMs: number): void {
    let expired = 0;
    while (this.waiting.length > 0 && now - this.waiting[0]!.since >= budgetMs) {
      this.scheduler.forget(1);
      this.options.drop(this.waiting.shift()!.item, 'overloaded');
      expired++;
    }
    if (expired > 0) this.settleIdle();
  }

  /** @internal With no queue, a frame that could not start in this round is answered now. */
  refuseUnstarted(): void {
    if (this.options.queueLength > 0 || this.waiting.length === 0) return;
    const reason = this.inFlight >= this.options.maxInFlight ? 'superseded' : 'overloaded';
    this.scheduler.forget(this.waiting.length);
    for (const { item } of this.waiting.splice(0)) this.options.drop(item, reason);
    this.settleIdle();
  }

  /** @internal Takes the oldest waiting frame out and processes it. */
  startHead(now: number): Promise<void> {
    const { item, since } = this.waiting.shift()!;
    return this.options.process(item, now - since);
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
  private turn = 0;
  private expiryTimer: ReturnType<typeof setTimeout> | undefined;
  private expiryAt = Infinity;
  private pumpScheduled = false;
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
  runOnce<T>(work: (waitedMs: number) => Promise<T>): Promise<ScheduledOutcome<T>> {
    return new Promise<ScheduledOutcome<T>>((resolve, reject) => {
      const lane = this.lane<null>({
        maxInFlight: 1,
        queueLength: 1,
        process: async (_item, waitedMs) => {
          try {
            resolve({ ran: true, value: await work(waitedMs) });
          } catch (error) {
            reject(error);
          } finally {
            lane.detach();
          }
        },
        drop: (_item, reason) => {
          lane.detach();
          resolve({ ran: false, reason });
        },
      });
      if (lane.push(null) === 'refused') {
        lane.detach();
        resolve({ ran: false, reason: 'refused' });
      }
    });
  }

  /** Frames being processed and frames waiting, gateway-wide. */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waitingTotal };
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
    for (const lane of this.lanes) lane.expire(now, this.budgetFor(lane));
    while (this.running < this.options.capacity) {
      const lane = this.nextLane();
      if (!lane) break;
      this.start(lane, now);
    }
    for (const lane of this.lanes) lane.refuseUnstarted();
    this.scheduleExpiry(this.earliestDeadline());
  }

  /** The budget of a lane's waiting frame: longer for a lane that missed a whole round of turns. */
  private budgetFor(lane: ScheduledLane): number {
    const behind = this.turn - lane.lastTurn > this.lanes.size;
    return behind ? this.options.budgetMs * BEHIND_BUDGET_FACTOR : this.options.budgetMs;
  }

  private nextLane(): ScheduledLane | undefined {
    let best: ScheduledLane | undefined;
    for (const lane of this.lanes) {
      if (lane.headSince === undefined || lane.inFlight >= lane.maxInFlight) continue;
      if (!best || lane.lastTurn < best.lastTurn) best = lane;
    }
    return best;
  }

  private start(lane: ScheduledLane, now: number): void {
    this.waitingTotal--;
    this.running++;
    lane.inFlight++;
    lane.lastTurn = ++this.turn;
    let settled = false;
    const done = () => {
      if (settled) return;
      settled = true;
      this.running--;
      lane.inFlight--;
      lane.settleIdle();
      this.schedule();
    };
    // process() answers its own failures; a rejection here must not leak the place.
    lane.startHead(now).then(done, done);
  }

  private earliestDeadline(): number {
    let earliest = Infinity;
    for (const lane of this.lanes) {
      if (lane.headSince !== undefined) earliest = Math.min(earliest, lane.headSince + this.budgetFor(lane));
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
