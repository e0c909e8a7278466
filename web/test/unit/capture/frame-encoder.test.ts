import { describe, expect, it, vi } from 'vitest';
import type { EncodeRequest, EncodeResponse } from '../../../src/capture/encoder-protocol.ts';
import { FrameEncoder } from '../../../src/capture/frame-encoder.ts';
import { fakeVideo, fakeWorkers, useFakeVideoGlobals } from '../../support/fake-encoder-worker.ts';

describe('FrameEncoder (worker path)', () => {
  useFakeVideoGlobals();

  function setup() {
    const { workers, createWorker } = fakeWorkers<EncodeRequest, EncodeResponse>();
    const encoder = new FrameEncoder({ createWorker, jobTimeoutMs: 1000 });
    const answer = (index: number) => {
      const { width, height } = workers[index]!.last;
      workers[index]!.reply({ ok: true, bytes: new ArrayBuffer(3), width, height });
    };
    return { encoder, workers, element: fakeVideo(), answer };
  }

  it('encodes through the worker', async () => {
    const { encoder, workers, element, answer } = setup();
    const pending = encoder.encode(element, 320, 0.8);
    await vi.advanceTimersByTimeAsync(0);
    expect(workers[0]!.requests[0]).toMatchObject({ width: 320, height: 240, quality: 0.8 });
    answer(0);
    await expect(pending).resolves.toMatchObject({ width: 320, height: 240, path: 'worker' });
  });

  it('gives up on a job the worker never answers, replaces the worker, and the next frame goes through', async () => {
    const { encoder, workers, element, answer } = setup();
    const hung = encoder.encode(element, 'native', 0.8);
    const outcome = expect(hung).rejects.toThrow(/did not answer within 1 s/);
    await vi.advanceTimersByTimeAsync(999);
    expect(workers[0]!.terminated).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await outcome;
    expect(workers[0]!.terminated).toBe(true);

    const next = encoder.encode(element, 'native', 0.8);
    await vi.advanceTimersByTimeAsync(0);
    expect(workers).toHaveLength(2);
    answer(1);
    await expect(next).resolves.toMatchObject({ width: 640, height: 480, path: 'worker' });
    expect(encoder.path).toBe('worker');
  });

  it('takes the main thread for good when the worker fails, saying why', async () => {
    const { encoder, workers, element } = setup();
    const pending = encoder.encode(element, 320, 0.8);
    await vi.advanceTimersByTimeAsync(0);
    workers[0]!.onerror?.({ message: 'worker script failed to load', preventDefault: () => {} } as ErrorEvent);
    await expect(pending).rejects.toThrow('worker script failed to load');
    expect(workers[0]!.terminated).toBe(true);
    expect(encoder.path).toBe('main-thread');
    expect(encoder.fallbackReason).toBe('worker script failed to load');
  });
});
