import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DropReason } from '@sightline/shared/protocol';
import { FairScheduler, type LaneOptions } from '../../../src/scheduling/fair-scheduler.ts';

/** A lane whose frames finish when the test says so, recording what happened to each. */
function recorder(scheduler: FairScheduler, options: Partial<LaneOptions<string>> = {}) {
  const started: Array<{ item: string; waitedMs: number }> = [];
  const dropped: Array<{ item: string; reason: DropReason }> = [];
  const finishers = new Map<string, () => void>();
  const lane = scheduler.lane<string>({
    maxInFlight: 1,
    queueLength: 2,
    process: (item, waitedMs) => {
      started.push({ item, waitedMs });
      return new Promise<void>((resolve) => finishers.set(item, resolve));
    },
    drop: (item, reason) => dropped.push({ item, reason }),
    ...options,
  });
  const finish = async (item: string) => {
    finishers.get(item)!();
    await Promise.resolve();
    await Promise.resolve();
  };
  return { lane, started, dropped, finish };
}

describe('fair scheduler', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const scheduler = (options: Partial<ConstructorParameters<typeof FairScheduler>[0]> = {}) =>
    new FairScheduler({ capacity: 1, budgetMs: 50, maxWaiting: 100, now: () => Date.now(), ...options });

  it('starts a frame at once when there is room, and the next when a place frees up', async () => {
    const s = scheduler();
    const a = recorder(s);
    a.lane.push('a1');
    a.lane.push('a2');
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
    heavy.lane.push('h2');
    light.lane.push('l1');
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
        const before = lane.started.length;
        lane.lane.push(`f${sent++}`);
        lane.lane.push(`f${sent++}`);
        if (lane.started.length > before) running.push({ lane, item: lane.started.at(-1)!.item });
      }
    };
    fill();
    for (let round = 0; round < 60; round++) {
      const oldest = running.shift()!;
      const counts = lanes.map((l) => l.started.length);
      await oldest.lane.finish(oldest.item);
      lanes.forEach((lane, i) => {
        if (lane.started.length > counts[i]!) running.push({ lane, item: lane.started.at(-1)!.item });
      });
      fill();
    }
    const counts = lanes.map((l) => l.started.length);
    expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
  });

  it('answers the oldest waiting frame `superseded` when a newer one arrives at a full lane', () => {
    const s = scheduler();
    const a = recorder(s, { queueLength: 2 });
    for (const item of ['a1', 'a2', 'a3', 'a4']) a.lane.push(item);
    expect(a.started.map((x) => x.item)).toEqual(['a1']);
    expect(a.dropped).toEqual([{ item: 'a2', reason: 'superseded' }]);
    expect(s.load).toEqual({ running: 1, waiting: 2 });
  });

  it('answers a frame that could not start within the budget `overloaded`, at once', () => {
    const s = scheduler({ budgetMs: 50 });
    const busy = recorder(s);
    const late = recorder(s);
    busy.lane.push('b1');
    late.lane.push('l1');
    vi.advanceTimersByTime(49);
    expect(late.dropped).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(late.dropped).toEqual([{ item: 'l1', reason: 'overloaded' }]);
    expect(s.load.waiting).toBe(0);
  });

  it('refuses a frame outright once the gateway holds maxWaiting frames', () => {
    const s = scheduler({ maxWaiting: 2 });
    const lanes = [recorder(s), recorder(s), recorder(s), recorder(s)];
    expect(lanes.map((l, i) => l.lane.push(`x${i}`))).toEqual(['accepted', 'accepted', 'accepted', 'refused']);
  });

  it('with no queue, answers a frame that cannot start at once: superseded by its own, or overloaded', () => {
    const s = scheduler({ capacity: 2 });
    const a = recorder(s, { queueLength: 0, maxInFlight: 1 });
    const b = recorder(s, { queueLength: 0, maxInFlight: 2 });
    a.lane.push('a1');
    a.lane.push('a2');
    b.lane.push('b1');
    b.lane.push('b2');
    expect(a.dropped).toEqual([{ item: 'a2', reason: 'superseded' }]);
    expect(b.dropped).toEqual([{ item: 'b2', reason: 'overloaded' }]);
  });

  it('on close, answers waiting and later frames with the reason, lets running ones finish, then reports idle', async () => {
    const s = scheduler();
    const a = recorder(s);
    a.lane.push('a1');
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
    b.lane.push('b1');
    b.lane.detach();
    expect(b.dropped).toEqual([]);
    expect(s.load.waiting).toBe(0);
    await a.finish('a1');
    expect(b.started).toEqual([]);
  });
});

describe('fair scheduler, single requests', () => {
  it('runs work in its turn, and reports a refusal or a late drop instead of running it', async () => {
    vi.useFakeTimers();
    try {
      const s = new FairScheduler({ capacity: 1, budgetMs: 30, maxWaiting: 1, now: () => Date.now() });
      let release!: () => void;
      const first = s.runOnce(() => new Promise<string>((resolve) => (release = () => resolve('first'))));
      const second = s.runOnce(async () => 'second');
      const third = s.runOnce(async () => 'third');
      await expect(third).resolves.toEqual({ ran: false, reason: 'refused' });
      vi.advanceTimersByTime(30);
      await expect(second).resolves.toEqual({ ran: false, reason: 'overloaded' });
      release();
      await expect(first).resolves.toEqual({ ran: true, value: 'first' });
      expect(s.load).toEqual({ running: 0, waiting: 0 });
      await expect(s.runOnce(async () => 'fourth')).resolves.toEqual({ ran: true, value: 'fourth' });
    } finally {
      vi.useRealTimers();
    }
  });
});
