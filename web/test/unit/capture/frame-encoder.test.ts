import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { EncodeRequest, EncodeResponse } from '../../../src/capture/encoder-protocol.ts';
import { FrameEncoder, type EncoderWorker, type FrameSourceElement } from '../../../src/capture/frame-encoder.ts';

class FakeVideoElement {
  videoWidth = 640;
  videoHeight = 480;
}

class FakeVideoFrame {
  closed = false;
  close(): void {
    this.closed = true;
  }
}

/** A worker that answers only when told to. */
class FakeWorker implements EncoderWorker {
  onmessage: ((event: MessageEvent<EncodeResponse>) => void) | null = null;
  onerror: ((event: ErrorEvent) => void) | null = null;
  requests: EncodeRequest[] = [];
  terminated = false;
  postMessage(message: EncodeRequest): void {
    this.requests.push(message);
  }
  terminate(): void {
    this.terminated = true;
  }
  answerLast(): void {
    const { id, width, height } = this.requests[this.requests.length - 1]!;
    this.onmessage?.({ data: { id, ok: true, bytes: new ArrayBuffer(3), width, height } } as MessageEvent<EncodeResponse>);
  }
}

describe('FrameEncoder (worker path)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.stubGlobal('HTMLVideoElement', FakeVideoElement);
    vi.stubGlobal('VideoFrame', FakeVideoFrame);
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  function setup() {
    const workers: FakeWorker[] = [];
    const encoder = new FrameEncoder({
      createWorker: () => {
        const worker = new FakeWorker();
        workers.push(worker);
        return worker;
      },
      jobTimeoutMs: 1000,
    });
    const element = new FakeVideoElement() as unknown as FrameSourceElement;
    return { encoder, workers, element };
  }

  it('encodes through the worker', async () => {
    const { encoder, workers, element } = setup();
    const pending = encoder.encode(element, 320, 0.8);
    await vi.advanceTimersByTimeAsync(0);
    expect(workers[0]!.requests[0]).toMatchObject({ width: 320, height: 240, quality: 0.8 });
    workers[0]!.answerLast();
    await expect(pending).resolves.toMatchObject({ width: 320, height: 240, path: 'worker' });
  });

  it('gives up on a job the worker never answers, replaces the worker, and the next frame goes through', async () => {
    const { encoder, workers, element } = setup();
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
    workers[1]!.answerLast();
    await expect(next).resolves.toMatchObject({ width: 640, height: 480, path: 'worker' });
    expect(encoder.path).toBe('worker');
  });
});
