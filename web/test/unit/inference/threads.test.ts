import { describe, expect, it } from 'vitest';
import { MAX_WASM_THREADS, wasmThreads } from '../../../src/inference/threads.ts';

const isolated = (hardwareConcurrency: number | undefined) => ({ crossOriginIsolated: true, hardwareConcurrency });

describe('wasmThreads', () => {
  it('is one thread without cross-origin isolation, whatever was asked', () => {
    expect(wasmThreads('auto', { crossOriginIsolated: false, hardwareConcurrency: 8 })).toBe(1);
    expect(wasmThreads(4, { crossOriginIsolated: false, hardwareConcurrency: 8 })).toBe(1);
  });

  it('auto: every core but one (the page keeps one), at most MAX_WASM_THREADS; one when the browser hides the count', () => {
    expect(wasmThreads('auto', isolated(2))).toBe(1);
    expect(wasmThreads('auto', isolated(4))).toBe(3);
    expect(wasmThreads('auto', isolated(16))).toBe(MAX_WASM_THREADS);
    expect(wasmThreads('auto', isolated(1))).toBe(1);
    expect(wasmThreads('auto', isolated(undefined))).toBe(1);
    expect(wasmThreads('auto', isolated(0))).toBe(1);
  });

  it('a chosen count, kept within 1..MAX_WASM_THREADS', () => {
    expect(wasmThreads(1, isolated(2))).toBe(1);
    expect(wasmThreads(2, isolated(2))).toBe(2);
    expect(wasmThreads(64, isolated(2))).toBe(MAX_WASM_THREADS);
    expect(wasmThreads(Number.NaN, isolated(2))).toBe(1);
  });
});
