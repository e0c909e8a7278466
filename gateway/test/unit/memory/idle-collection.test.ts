import { setImmediate } from 'node:timers';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../src/logger.ts';
import { engineCollection, startIdleCollection } from '../../../src/memory/idle-collection.ts';

const MIB = 1024 * 1024;
const PERIOD_MS = 2000;

describe('idle collection', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A gateway whose load and held bytes the test sets; counts the collections, which free `freed` bytes. */
  function gateway(fails = false) {
    const state = { running: 0, waiting: 0, held: 100 * MIB, freed: 0 };
    const collect = vi.fn(() => {
      if (fails) return Promise.reject(new Error('no inspector in this build'));
      state.held -= state.freed;
      return Promise.resolve();
    });
    const collection = startIdleCollection({
      load: () => ({ running: state.running, waiting: state.waiting }),
      periodMs: PERIOD_MS,
      growthBytes: 16 * MIB,
      logger: createLogger('silent'),
      collect,
      heldBytes: () => state.held,
    });
    return { state, collect, collection };
  }

  it('collects once the gateway has been quiet for two checks after its memory grew, and not again until it grows again', async () => {
    const { state, collect, collection } = gateway();
    state.running = 2;
    state.waiting = 5;
    state.held += 80 * MIB;
    state.freed = 70 * MIB;
    await vi.advanceTimersByTimeAsync(10 * PERIOD_MS);
    expect(collect).not.toHaveBeenCalled();
    state.running = 0;
    state.waiting = 0;
    await vi.advanceTimersByTimeAsync(PERIOD_MS);
    expect(collect).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(PERIOD_MS);
    expect(collect).toHaveBeenCalledTimes(1);
    expect(collection.collections).toBe(1);
    await vi.advanceTimersByTimeAsync(10 * PERIOD_MS);
    expect(collect).toHaveBeenCalledTimes(1);
    collection.stop();
  });

  it('never collects while a frame is processed or waits, however much it grew', async () => {
    const { state, collect, collection } = gateway();
    state.held += 500 * MIB;
    for (let i = 0; i < 20; i++) {
      state.running = i % 2;
      state.waiting = (i + 1) % 2;
      await vi.advanceTimersByTimeAsync(PERIOD_MS);
    }
    expect(collect).not.toHaveBeenCalled();
    collection.stop();
  });

  it('leaves small growth to V8, measured from the lowest point since the last collection', async () => {
    const { state, collect, collection } = gateway();
    state.held += 10 * MIB;
    await vi.advanceTimersByTimeAsync(5 * PERIOD_MS);
    expect(collect).not.toHaveBeenCalled();
    // V8 gave memory back on its own: growth counts from there.
    state.held -= 30 * MIB;
    await vi.advanceTimersByTimeAsync(PERIOD_MS);
    state.held += 20 * MIB;
    await vi.advanceTimersByTimeAsync(PERIOD_MS);
    expect(collect).toHaveBeenCalledTimes(1);
    collection.stop();
  });

  it('gives up, once, where the engine cannot collect', async () => {
    const { state, collect, collection } = gateway(true);
    state.held += 100 * MIB;
    await vi.advanceTimersByTimeAsync(10 * PERIOD_MS);
    expect(collect).toHaveBeenCalledTimes(1);
    expect(collection.collections).toBe(0);
  });

  it('stops looking when stopped', async () => {
    const { state, collect, collection } = gateway();
    collection.stop();
    state.held += 100 * MIB;
    await vi.advanceTimersByTimeAsync(10 * PERIOD_MS);
    expect(collect).not.toHaveBeenCalled();
  });
});

describe("the engine's collection", () => {
  it('frees what nothing holds any more', async () => {
    const collected = new WeakRef(new ArrayBuffer(64 * MIB));
    // A WeakRef keeps its target until the end of the job that made it.
    await new Promise((resolve) => setImmediate(resolve));
    await engineCollection();
    expect(collected.deref()).toBeUndefined();
  });
});
