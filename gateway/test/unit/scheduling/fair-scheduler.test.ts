import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DropReason } from '@sightline/shared/protocol';
import type { Place } from '../../../src/inference/inference-schedule.ts';
import { FairScheduler, type FrameExecutor, type LaneOptions } from '../../../src/scheduling/fair-scheduler.ts';

/** Lets the event loop finish its turn: promise callbacks, then the scheduler's end-of-turn hand-out. */
async function turn(): Promise<void> {
  for (let i = 0; i < 3; i++) await Promise.resolve();
  vi.advanceTimersByTime(0);
  for (let i = 0; i < 3; i++) await Promise.resolve();
}

/**
 * An executor with `places` places whose runs end when the test says (finish), as the inference workers'
 * would after a run; `batch` frames of one kind (the part of the item before ':') may run together.
 */
class HeldExecutor implements FrameExecutor<string, string> {
  private readonly running = new Map<number, { items: readonly string[]; resolve: (outcomes: string[]) => void }>();
  private readonly listeners: (() => void)[] = [];
  readonly runs: string[][] = [];
  /** Whether each start was asked to have every thread, in order. */
  readonly wideAsked: boolean[] = [];

  constructor(
    readonly places: number,
    private readonly batch = 1,
  ) {}

  get freePlaces(): number {
    return this.places - this.running.size;
  }
  placeFor(wide: boolean): Place | undefined {
    for (let worker = 0; worker < this.places; worker++) {
      if (this.running.has(worker)) continue;
      this.wideAsked.push(wide);
      return { worker, wide: false };
    }
    return undefined;
  }
  batchLimit(): number {
    return this.batch;
  }
  batchesWith(first: string, other: string): boolean {
    return first.split(':')[0] === other.split(':')[0];
  }
  run(place: Place, items: readonly string[]): Promise<string[]> {
    this.runs.push([...items]);
    return new Promise((resolve) => this.running.set(place.worker, { items, resolve }));
  }
  onFree(listener: () => void): void {
    this.listeners.push(listener);
  }
  /** Ends the run holding `item`: every frame of it is answered with its own name. */
  end(item: string): void {
    for (const [slot, run] of this.running) {
      if (!run.items.includes(item)) continue;
      this.running.delete(slot);
      run.resolve(run.items.map((i) => `done:${i}`));
      return;
    }
    throw new Error(`no run holds ${item}`);
  }
}

interface Harness {
  scheduler: FairScheduler<string, string>;
  executor: HeldExecutor;
}

/** A lane whose frames finish when the test says so, recording what happened to each. */
function recorder({ scheduler, executor }: Harness, options: Partial<LaneOptions<string, string>> = {}) {
  const started: Array<{ item: string; waitedMs: number }> = [];
  const completed: string[] = [];
  const dropped: Array<{ item: string; reason: DropReason; retryAfterMs?: number }> = [];
  const pushedAt = new Map<string, number>();
  const lane = scheduler.lane({
    maxInFlight: 1,
    queueLength: 2,
    complete: (item, outcome) => completed.push(`${item}=${outcome instanceof Error ? outcome.message : outcome}`),
    drop: (item, reason, retryAfterMs) => dropped.push({ item, reason, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) }),
    ...options,
  });
  const push = lane.push.bind(lane);
  lane.push = (item: string) => {
    pushedAt.set(item, scheduler.now());
    return push(item);
  };
  // What this lane's frames started, and how long each waited in its lane for a place.
  const original = executor.run.bind(executor);
  executor.run = (place, items) => {
    for (const item of items) if (pushedAt.has(item)) started.push({ item, waitedMs: scheduler.now() - pushedAt.get(item)! });
    return original(place, items);
  };
  const finish = async (item: string) => {
    executor.end(item);
    await turn();
  };
  return { lane, started, completed, dropped, finish };
}

describe('fair scheduler', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const scheduler = ({
    capacity = 1,
    batch = 1,
    ...options
  }: Partial<ConstructorParameters<typeof FairScheduler>[0]> & { capacity?: number; batch?: number } = {}): Harness => {
    const executor = new HeldExecutor(capacity, batch);
    return { executor, scheduler: new FairScheduler({ budgetMs: 50, maxWaiting: 100, now: () => Date.now(), ...options }, executor) };
  };

  it('starts a frame at once when there is room, and the next when a place frees up', async () => {
    const s = scheduler();
    const a = recorder(s);
    a.lane.push('a1');
    a.lane.push('a2');
    await turn();
    expect(a.started).toEqual([{ item: 'a1', waitedMs: 0 }]);
    vi.advanceTimersByTime(10);
    await a.finish('a1');
    expect(a.started.map((x) => x.item)).toEqual(['a1', 'a2']);
    expect(a.started[1]!.waitedMs).toBe(10);
  });

  it('gives the next place to the lane served longest ago, so a busy sender cannot take more than its share', async () => {
    const s = scheduler({ capacity: 1 });
    const heavy = recorder(s, { maxInFlight: 1, queueLength: 2 });
    const light = recorder(s, { maxInFlight: 1, queueLength: 2 });
    heavy.lane.push('h1');
    await turn();
    heavy.lane.push('h2');
    light.lane.push('l1');
    await turn();
    await heavy.finish('h1');
    // h2 waited longer, but the light lane has not been served yet.
    expect(light.started.map((x) => x.item)).toEqual(['l1']);
    expect(heavy.started.map((x) => x.item)).toEqual(['h1']);
    await light.finish('l1');
    expect(heavy.started.map((x) => x.item)).toEqual(['h1', 'h2']);
  });

  it('shares places evenly between lanes that always have a frame waiting', async () => {
    const s = scheduler({ capacity: 2, budgetMs: 1e9 });
    const lanes = [recorder(s), recorder(s), recorder(s)];
    const running: Array<{ lane: (typeof lanes)[number]; item: string }> = [];
    let sent = 0;
    const fill = () => {
      for (const lane of lanes) {
        lane.lane.push(`f${sent++}`);
        lane.lane.push(`f${sent++}`);
      }
    };
    fill();
    await turn();
    for (const lane of lanes) if (lane.started.length > 0) running.push({ lane, item: lane.started.at(-1)!.item });
    for (let round = 0; round < 60; round++) {
      const oldest = running.shift()!;
      fill();
      const counts = lanes.map((l) => l.started.length);
      await oldest.lane.finish(oldest.item);
      lanes.forEach((lane, i) => {
        if (lane.started.length > counts[i]!) running.push({ lane, item: lane.started.at(-1)!.item });
      });
    }
    const counts = lanes.map((l) => l.started.length);
    expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
  });

  it('hands a freed place to the lane served longest ago among all frames read in that turn, not to the first read', async () => {
    const s = scheduler({ capacity: 1, budgetMs: 1e9 });
    const lanes = Array.from({ length: 4 }, () => recorder(s, { queueLength: 1 }));
    // Every round the sockets are read in the same order, lane 0 first, after the place has freed up.
    let running: { lane: (typeof lanes)[number]; item: string } | undefined;
    for (let round = 0; round < 40; round++) {
      if (running) await running.lane.finish(running.item);
      lanes.forEach((lane, i) => lane.lane.push(`r${round}l${i}`));
      await turn();
      const started = lanes.find((lane) => lane.started.at(-1)?.item === `r${round}l${lanes.indexOf(lane)}`);
      running = started ? { lane: started, item: started.started.at(-1)!.item } : undefined;
    }
    const counts = lanes.map((l) => l.started.length);
    expect(Math.max(...counts) - Math.min(...counts), counts.join(',')).toBeLessThanOrEqual(1);
  });

  it('answers the oldest waiting frame `superseded` when a newer one arrives at a full lane', async () => {
    const s = scheduler();
    const a = recorder(s, { queueLength: 2 });
    a.lane.push('a1');
    await turn();
    for (const item of ['a2', 'a3', 'a4']) a.lane.push(item);
    await turn();
    expect(a.started.map((x) => x.item)).toEqual(['a1']);
    expect(a.dropped).toEqual([{ item: 'a2', reason: 'superseded' }]);
    expect(s.scheduler.load).toEqual({ running: 1, waiting: 2 });
  });

  /** Runs one frame of `lane` for `ms`, so the scheduler learns how long a frame holds a place. */
  async function serve(lane: ReturnType<typeof recorder>, item: string, ms: number): Promise<void> {
    lane.lane.push(item);
    await turn();
    vi.advanceTimersByTime(ms);
    await lane.finish(item);
  }

  it('refuses on receipt a frame predicted to wait past the budget when its lane has one waiting already, and says when to send again', async () => {
    const s = scheduler({ capacity: 1, budgetMs: 30 });
    const busy = recorder(s);
    await serve(busy, 'b0', 20); // a frame holds the place 20 ms
    busy.lane.push('b1'); // starts at once
    await turn();
    busy.lane.push('b2'); // one of its own in flight, so the budget applies: behind it, 20 ms predicted
    busy.lane.push('b3'); // and one waiting: a whole round more, 40 ms predicted
    expect(busy.dropped).toEqual([{ item: 'b3', reason: 'overloaded', retryAfterMs: 10 }]);
    expect(s.scheduler.load.waiting).toBe(1);
  });

  it("queues a closed-loop lane's only frame whatever its wait; once a lane sends with a frame out, the limit applies to it", async () => {
    const s = scheduler({ capacity: 1, budgetMs: 30 });
    const busy = recorder(s);
    const lanes = [recorder(s), recorder(s), recorder(s), recorder(s)];
    await serve(busy, 'b0', 40); // a frame holds the place 40 ms
    busy.lane.push('b1');
    await turn();
    // Each stop-and-wait lane's only frame waits behind the others (40, 80, 120, 160 ms): queued all the same.
    lanes.forEach((lane, i) => lane.lane.push(`only${i}`));
    expect(lanes.map((lane) => lane.dropped)).toEqual([[], [], [], []]);
    expect(s.scheduler.load.waiting).toBe(4);
    // The last one sends again while its frame waits: open loop now. This frame would wait behind the three
    // others' and a whole round after its own first (8 frames of 40 ms): 280 ms past the limit of one service.
    lanes[3]!.lane.push('again3');
    expect(lanes[3]!.dropped).toEqual([{ item: 'again3', reason: 'overloaded', retryAfterMs: 280 }]);
    await busy.finish('b1');
    expect(lanes[0]!.started.map((x) => x.item)).toEqual(['only0']);
  });

  it("gives the frames a lane had waiting an open-loop lane's patience once it sends with one out: cameras starting together", async () => {
    const s = scheduler({ capacity: 1, budgetMs: 30 });
    const busy = recorder(s);
    const cameras = [recorder(s), recorder(s), recorder(s), recorder(s)];
    await serve(busy, 'b0', 40); // a frame holds the place 40 ms: the freshness limit is 40 ms
    busy.lane.push('b1');
    await turn();
    // Every camera's first frame is a closed-loop lane's only frame: queued, whatever its wait.
    cameras.forEach((camera, i) => camera.lane.push(`first${i}`));
    await turn();
    expect(s.scheduler.load.waiting).toBe(4);
    // Camera 2 sends again 20 ms on: open loop. Its first frame has waited 20 ms of its 40 and keeps its place
    // until then; the new one would wait behind everyone's and is refused.
    vi.advanceTimersByTime(20);
    cameras[2]!.lane.push('second2');
    expect(cameras[2]!.dropped).toEqual([{ item: 'second2', reason: 'overloaded', retryAfterMs: expect.any(Number) }]);
    await turn();
    vi.advanceTimersByTime(19);
    expect(cameras[2]!.dropped).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(cameras[2]!.dropped[1]).toEqual({ item: 'first2', reason: 'overloaded', retryAfterMs: expect.any(Number) });
    // Camera 3 sends again at 100 ms: its first frame, 100 ms old, is answered at once, before the new one is judged.
    vi.advanceTimersByTime(60);
    cameras[3]!.lane.push('second3');
    expect(cameras[3]!.dropped.map((d) => d.item)).toEqual(['first3', 'second3']);
    // The stop-and-wait cameras keep theirs: a closed-loop lane's frame is never dropped for lateness.
    expect(cameras[0]!.dropped).toEqual([]);
    expect(cameras[1]!.dropped).toEqual([]);
    expect(s.scheduler.load.waiting).toBe(2);
    await busy.finish('b1');
    expect(cameras[0]!.started.map((x) => x.item)).toEqual(['first0']);
  });

  it("never drops a stop-and-wait frame for lateness, however long the run before it takes: a stalled worker is the watchdog's", async () => {
    const s = scheduler({ capacity: 1, budgetMs: 50 });
    const busy = recorder(s);
    const next = recorder(s);
    await serve(busy, 'b0', 20);
    busy.lane.push('b1');
    await turn();
    next.lane.push('n1'); // 20 ms predicted: accepted
    await turn();
    vi.advanceTimersByTime(60_000); // the running frame takes a minute
    expect(next.dropped).toEqual([]);
    expect(s.scheduler.load.waiting).toBe(1);
    await busy.finish('b1');
    expect(next.started.map((x) => x.item)).toEqual(['n1']);
  });

  it("drops an open-loop lane's frame once it has waited the freshness limit: its camera sends a fresher one soon", async () => {
    const s = scheduler({ capacity: 1, budgetMs: 50 });
    const camera = recorder(s, { maxInFlight: 2 });
    camera.lane.push('c0'); // alone: starts at once
    await turn();
    camera.lane.push('c1'); // sent with c0 still out: open loop from now on, and waits for the only place
    await turn();
    vi.advanceTimersByTime(50 - 1); // the budget: no frame has finished, so no service time yet
    expect(camera.dropped).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(camera.dropped).toEqual([{ item: 'c1', reason: 'overloaded', retryAfterMs: expect.any(Number) }]);
    await camera.finish('c0');
    expect(camera.started.map((x) => x.item)).toEqual(['c0']);
  });

  it('with a budget of 0, starts every frame a free place can take, and a stop-and-wait frame waits for its turn before any service time is known', async () => {
    const s = scheduler({ capacity: 1, budgetMs: 0 });
    const client = recorder(s);
    const other = recorder(s);
    client.lane.push('a1'); // nothing finished yet: the freshness limit is 0, and a place is free
    await turn();
    expect(client.started.map((x) => x.item)).toEqual(['a1']);
    other.lane.push('o1'); // a stop-and-wait lane's only frame, behind a1: promised no wait, as nothing was measured
    await turn();
    vi.advanceTimersByTime(1000);
    expect(other.dropped).toEqual([]);
    await client.finish('a1');
    expect(other.started).toEqual([{ item: 'o1', waitedMs: 1000 }]);
    expect([...client.dropped, ...other.dropped]).toEqual([]);
  });

  it('drops an open-loop frame as late only once a hand-out has left it waiting, not before its first chance at a place', async () => {
    const s = scheduler({ capacity: 2, budgetMs: 0 });
    const camera = recorder(s, { maxInFlight: 3 });
    camera.lane.push('c0');
    camera.lane.push('c1'); // sent with c0 out: open loop, patience 0; the second place is free
    await turn();
    expect(camera.started.map((x) => x.item)).toEqual(['c0', 'c1']);
    camera.lane.push('c2'); // both places busy: the hand-out at the end of this turn leaves it waiting: late
    await turn();
    expect(camera.dropped).toEqual([]);
    vi.advanceTimersByTime(1); // the expiry check after that hand-out
    expect(camera.dropped).toEqual([{ item: 'c2', reason: 'overloaded', retryAfterMs: expect.any(Number) }]);
  });

  it('starts the newest waiting frame first among cameras served as often; the older ones turn late and are answered', async () => {
    const s = scheduler({ capacity: 1, budgetMs: 10 });
    const busy = recorder(s);
    const cameras = [0, 1, 2].map(() => recorder(s, { queueLength: 1 }));
    await serve(busy, 'b0', 10); // the freshness limit: 10 ms
    busy.lane.push('b1');
    await turn();
    for (const [i, camera] of cameras.entries()) {
      camera.lane.push(`${i}x`); // waits behind b1
      camera.lane.push(`${i}y`); // sent with x waiting: open loop from now on, and the newest wins
      await turn();
      vi.advanceTimersByTime(2);
    }
    await busy.finish('b1');
    // None of the cameras served yet: the newest of their frames goes first.
    expect(cameras.map((camera) => camera.started.map((x) => x.item))).toEqual([[], [], ['2y']]);
    vi.advanceTimersByTime(10); // past the freshness limit: the two left waiting are answered, their cameras send anew
    expect(cameras.map((camera) => camera.dropped.map((x) => `${x.item}:${x.reason}`))).toEqual([
      ['0x:superseded', '0y:overloaded'],
      ['1x:superseded', '1y:overloaded'],
      ['2x:superseded'],
    ]);
    expect(s.scheduler.load.waiting).toBe(0);
  });

  it("does not count a frame late while it waits only for its own lane's frames in flight (a pipelining client on an idle gateway)", async () => {
    const s = scheduler({ capacity: 2, budgetMs: 0 });
    const client = recorder(s, { maxInFlight: 2, queueLength: 3 });
    await serve(client, 'p0', 20); // one place interval: 10 ms
    client.lane.push('p1');
    client.lane.push('p2'); // open loop: both places, its two in flight
    client.lane.push('p3'); // waits for one of its own
    await turn();
    expect(client.started.map((x) => x.item)).toEqual(['p0', 'p1', 'p2']);
    vi.advanceTimersByTime(15); // past its freshness limit, but no place went to another frame
    expect(client.dropped).toEqual([]);
    await client.finish('p1');
    expect(client.started.map((x) => x.item)).toEqual(['p0', 'p1', 'p2', 'p3']);
  });

  it('asks the executor for every thread only for a frame alone while no frame is being refused', async () => {
    const s = scheduler({ capacity: 1, budgetMs: 10 });
    const client = recorder(s, { maxInFlight: 2, queueLength: 3 });
    await serve(client, 'c0', 20); // a service time of 20 ms
    expect(s.executor.wideAsked).toEqual([true]);
    client.lane.push('c1');
    client.lane.push('c2'); // open loop: waits a place interval behind c1
    client.lane.push('c3'); // two place intervals: past the limit, refused
    await turn();
    expect(client.dropped.map((x) => x.item)).toEqual(['c3']);
    expect(s.executor.wideAsked).toEqual([true, false]);
    await client.finish('c1');
    expect(s.executor.wideAsked).toEqual([true, false, false]);
    vi.advanceTimersByTime(100); // no refusal for longer than a service time
    await client.finish('c2');
    client.lane.push('c4');
    await turn();
    expect(s.executor.wideAsked).toEqual([true, false, false, true]);
  });

  it('predicts a shorter wait for the lane served longest ago: it goes first in the round-robin order', async () => {
    const s = scheduler({ capacity: 1, budgetMs: 25 });
    const busy = recorder(s);
    const quiet = recorder(s);
    const other = recorder(s);
    await serve(other, 'o0', 20);
    await serve(busy, 'b0', 20);
    busy.lane.push('b1');
    await turn();
    other.lane.push('o1'); // behind the running frame: 20 ms
    // quiet has never been served: ahead of `other` in the order, 20 ms; busy, just served: behind it, 40 ms.
    expect(s.scheduler.predictWait(quiet.lane)).toBe(20);
    expect(s.scheduler.predictWait(busy.lane)).toBe(40);
    quiet.lane.push('q1');
    expect(s.scheduler.predictWait(busy.lane)).toBe(60);
    busy.lane.push('b2');
    expect(quiet.dropped).toEqual([]);
    expect(busy.dropped).toEqual([{ item: 'b2', reason: 'overloaded', retryAfterMs: expect.any(Number) }]);
  });

  it('spreads the retries of open-loop frames refused together by their turn: the least served first', async () => {
    const s = scheduler({ capacity: 1, budgetMs: 10 });
    const busy = recorder(s);
    await serve(busy, 'b0', 40);
    busy.lane.push('b1');
    await turn();
    const lanes = [recorder(s), recorder(s), recorder(s)];
    // Each lane's first frame waits (closed loop so far); the second, sent while the first waits, makes it open loop.
    for (const [i, lane] of lanes.entries()) {
      lane.lane.push(`first${i}`);
      lane.lane.push(`x${i}`);
    }
    const retries = lanes.map((lane) => lane.dropped[0]!.retryAfterMs!);
    // x0 waits behind the running frame and its own first: 80 ms, 40 past the limit of one service. x1 waits
    // behind first0 and a round of both lanes after its own first (4 frames of 40 ms), x2 behind one lane more.
    expect(retries).toEqual([40, 120, 200]);
  });

  it('tells the lane served most recently to come back last, when its turn comes round', async () => {
    const s = scheduler({ capacity: 1, budgetMs: 10 });
    const [a, b, c] = [recorder(s, { maxInFlight: 2 }), recorder(s, { maxInFlight: 2 }), recorder(s, { maxInFlight: 2 })];
    await serve(c, 'c0', 20); // served in the order c, b, a: a most recently
    await serve(b, 'b0', 20);
    await serve(a, 'a0', 20);
    const busy = recorder(s);
    busy.lane.push('x1'); // holds the place
    await turn();
    // Open loop: each sends two frames while neither is answered; the second of each is refused.
    for (const lane of [a, b, c]) lane.lane.push('first');
    for (const lane of [a, b, c]) lane.lane.push('late');
    // All three served once; c longest ago, then b, then a: the later in that order, the later the retry.
    const retries = [c, b, a].map((lane) => lane.dropped[0]!.retryAfterMs ?? NaN);
    expect(retries[0]!).toBeLessThan(retries[1]!);
    expect(retries[1]!).toBeLessThan(retries[2]!);
  });

  it('keeps the decoded pixels of the frames processed at once within the memory budget', async () => {
    const s = scheduler({ capacity: 3, memoryBudgetBytes: 100 });
    const cost = (item: string) => Number(item.split(':')[1]);
    const a = recorder(s, { cost });
    const b = recorder(s, { cost });
    const c = recorder(s, { cost });
    a.lane.push('a:60');
    b.lane.push('b:60');
    c.lane.push('c:30');
    await turn();
    // 60 + 30 fit; the second 60 waits for room although a place is free.
    expect([a.started.length, b.started.length, c.started.length]).toEqual([1, 0, 1]);
    await a.finish('a:60');
    expect(b.started.map((x) => x.item)).toEqual(['b:60']);
  });

  it('refuses a frame outright once the gateway holds maxWaiting frames, answering it through its lane', async () => {
    const s = scheduler({ maxWaiting: 2 });
    const lanes = [recorder(s), recorder(s), recorder(s), recorder(s)];
    lanes[0]!.lane.push('x0');
    await turn();
    lanes.slice(1).forEach((l, i) => l.lane.push(`x${i + 1}`));
    expect(s.scheduler.load.waiting).toBe(2);
    expect(lanes.map((l) => l.dropped)).toEqual([[], [], [], [{ item: 'x3', reason: 'overloaded', retryAfterMs: expect.any(Number) }]]);
  });

  it('with no queue, answers a frame that cannot start at once: superseded by its own, or overloaded', async () => {
    const s = scheduler({ capacity: 2 });
    const a = recorder(s, { queueLength: 0, maxInFlight: 1 });
    const b = recorder(s, { queueLength: 0, maxInFlight: 2 });
    a.lane.push('a1');
    b.lane.push('b1');
    await turn();
    a.lane.push('a2');
    b.lane.push('b2');
    await turn();
    expect(a.dropped).toEqual([{ item: 'a2', reason: 'superseded' }]);
    expect(b.dropped).toEqual([{ item: 'b2', reason: 'overloaded', retryAfterMs: expect.any(Number) }]);
  });

  it('on close, answers waiting and later frames with the reason, lets running ones finish, then reports idle', async () => {
    const s = scheduler();
    const a = recorder(s);
    a.lane.push('a1');
    await turn();
    a.lane.push('a2');
    let idle = false;
    a.lane.close('shutting_down');
    void a.lane.whenIdle().then(() => (idle = true));
    a.lane.push('a3');
    expect(a.dropped).toEqual([
      { item: 'a2', reason: 'shutting_down' },
      { item: 'a3', reason: 'shutting_down' },
    ]);
    await Promise.resolve();
    expect(idle).toBe(false);
    await a.finish('a1');
    expect(idle).toBe(true);
  });

  it('forgets the waiting frames of a detached lane without answering them, and frees their places', async () => {
    const s = scheduler();
    const a = recorder(s);
    const b = recorder(s);
    a.lane.push('a1');
    await turn();
    b.lane.push('b1');
    b.lane.detach();
    expect(b.dropped).toEqual([]);
    expect(s.scheduler.load.waiting).toBe(0);
    await a.finish('a1');
    expect(b.started).toEqual([]);
  });
});

describe('fair scheduler, handing frames to the executor', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const harness = (capacity: number, batch: number): Harness => {
    const executor = new HeldExecutor(capacity, batch);
    return { executor, scheduler: new FairScheduler({ budgetMs: 1e9, maxWaiting: 100, now: () => Date.now() }, executor) };
  };

  it('answers each frame that ran with its own outcome, and frees its place for the next', async () => {
    const h = harness(1, 1);
    const a = recorder(h);
    a.lane.push('a1');
    a.lane.push('a2');
    await turn();
    await a.finish('a1');
    expect(a.completed).toEqual(['a1=done:a1']);
    expect(h.executor.runs).toEqual([['a1'], ['a2']]);
  });

  it('hands frames of one kind that would start next over as one batch, in round-robin order, up to the limit', async () => {
    const h = harness(1, 2);
    const lanes = [recorder(h), recorder(h), recorder(h), recorder(h)];
    lanes[0]!.lane.push('m:0');
    await turn(); // alone: the place is taken
    lanes[1]!.lane.push('m:1');
    lanes[2]!.lane.push('other:2');
    lanes[3]!.lane.push('m:3');
    await turn();
    await lanes[0]!.finish('m:0');
    // lane 1 is next in the order; lane 3's frame runs with it, lane 2's (another kind) waits for the next place.
    expect(h.executor.runs).toEqual([['m:0'], ['m:1', 'm:3']]);
    await lanes[1]!.finish('m:1');
    expect(h.executor.runs.at(-1)).toEqual(['other:2']);
    expect([lanes[1]!.completed, lanes[3]!.completed]).toEqual([['m:1=done:m:1'], ['m:3=done:m:3']]);
  });
});
