import { describe, expect, it } from 'vitest';
import { nextPlace, sharedThreads, type WorkerState } from '../../../src/inference/inference-schedule.ts';

const idle = (canRunWide = false): WorkerState => ({ busy: false, busyWide: false, canRunWide });
const busy = (canRunWide = false, busyWide = false): WorkerState => ({ busy: true, busyWide, canRunWide });

describe('inference places', () => {
  it('gives a run asked to be wide every thread, on the worker that can', () => {
    expect(nextPlace([idle(), idle(true)], true)).toEqual({ worker: 1, wide: true });
    expect(nextPlace([idle(true)], true)).toEqual({ worker: 0, wide: true });
  });

  it('runs on a thread share when the policy does not ask for every thread', () => {
    expect(nextPlace([idle(), idle(true)], false)).toEqual({ worker: 0, wide: false });
    expect(nextPlace([idle(true)], false)).toEqual({ worker: 0, wide: false });
  });

  it('never runs wide beside another run', () => {
    expect(nextPlace([busy(true), idle()], true)).toEqual({ worker: 1, wide: false });
  });

  it('starts nothing beside a frame that has every thread', () => {
    expect(nextPlace([busy(true, true), idle()], false)).toBeUndefined();
  });

  it('waits when every worker is busy', () => {
    expect(nextPlace([busy(true), busy()], false)).toBeUndefined();
  });

  it('falls back to a thread share when the worker with every thread is gone (being replaced)', () => {
    expect(nextPlace([idle()], true)).toEqual({ worker: 0, wide: false });
  });

  it('shares the threads equally, at least one each', () => {
    expect(sharedThreads(2, 2)).toBe(1);
    expect(sharedThreads(8, 3)).toBe(2);
    expect(sharedThreads(1, 4)).toBe(1);
  });
});
