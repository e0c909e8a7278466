import { describe, expect, it } from 'vitest';
import { nextDispatch, sharedThreads, type SlotState } from '../../../src/inference/inference-schedule.ts';

const idle = (canRunWide = false): SlotState => ({ busy: false, busyWide: false, canRunWide });
const busy = (canRunWide = false, busyWide = false): SlotState => ({ busy: true, busyWide, canRunWide });

describe('inference schedule', () => {
  it('runs a frame that is alone with every thread, on the worker that can', () => {
    expect(nextDispatch([idle(), idle(true)], 1)).toEqual({ slot: 1, wide: true });
  });

  it('runs a frame alone on a thread share while frames are being refused: more come before it would end', () => {
    expect(nextDispatch([idle(), idle(true)], 1, true)).toEqual({ slot: 0, wide: false });
    expect(nextDispatch([idle(true)], 1, true)).toEqual({ slot: 0, wide: false });
  });

  it('runs queued frames side by side, one thread share each', () => {
    expect(nextDispatch([idle(true), idle()], 2)).toEqual({ slot: 0, wide: false });
    expect(nextDispatch([busy(true), idle()], 1)).toEqual({ slot: 1, wide: false });
  });

  it('starts nothing beside a frame that has every thread', () => {
    expect(nextDispatch([busy(true, true), idle()], 3)).toBeUndefined();
  });

  it('waits when every worker is busy, and with nothing to do', () => {
    expect(nextDispatch([busy(true), busy()], 4)).toBeUndefined();
    expect(nextDispatch([idle(true), idle()], 0)).toBeUndefined();
  });

  it('falls back to a thread share when the worker with every thread is gone (being replaced)', () => {
    expect(nextDispatch([idle()], 1)).toEqual({ slot: 0, wide: false });
  });

  it('one worker always runs wide when alone', () => {
    expect(nextDispatch([idle(true)], 1)).toEqual({ slot: 0, wide: true });
    expect(nextDispatch([idle(true)], 5)).toEqual({ slot: 0, wide: false });
  });

  it('shares the threads equally, at least one each', () => {
    expect(sharedThreads(2, 2)).toBe(1);
    expect(sharedThreads(8, 3)).toBe(2);
    expect(sharedThreads(1, 4)).toBe(1);
  });
});
