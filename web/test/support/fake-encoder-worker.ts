/**
 * What the encoders' tests hand in for the browser: a <video> with a picture, VideoFrame, and workers that
 * answer only when told to (capture/worker-jobs.ts's JobWorker).
 */
import { afterEach, beforeEach, vi } from 'vitest';
import type { FrameSourceElement } from '../../src/capture/frame-encoder.ts';
import type { JobWorker } from '../../src/capture/worker-jobs.ts';

export class FakeVideoElement {
  videoWidth = 640;
  videoHeight = 480;
}

export class FakeVideoFrame {
  closed = false;
  constructor(readonly timestamp = 1_000_000) {}
  close(): void {
    this.closed = true;
  }
}

/** A 640×480 <video> as the encoders see it. */
export function fakeVideo(): FrameSourceElement {
  return new FakeVideoElement() as unknown as FrameSourceElement;
}

/** Fake timers, and FakeVideoElement and FakeVideoFrame as HTMLVideoElement and VideoFrame, in every test of the file. */
export function useFakeVideoGlobals(): void {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.stubGlobal('HTMLVideoElement', FakeVideoElement);
    vi.stubGlobal('VideoFrame', FakeVideoFrame);
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });
}

/** A response without its id (each member of a union alike). */
type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;

/** A worker that keeps the requests posted to it and answers only when told to. */
export class FakeJobWorker<Request extends { id: number }, Response extends { id: number }> implements JobWorker<Request, Response> {
  onmessage: ((event: MessageEvent<Response>) => void) | null = null;
  onerror: ((event: ErrorEvent) => void) | null = null;
  requests: Request[] = [];
  terminated = false;
  postMessage(message: Request): void {
    this.requests.push(message);
  }
  terminate(): void {
    this.terminated = true;
  }
  /** The last request posted. */
  get last(): Request {
    return this.requests.at(-1)!;
  }
  /** Answers the last request with `response` (its id added). */
  reply(response: WithoutId<Response>): void {
    this.onmessage?.({ data: { id: this.last.id, ...response } } as unknown as MessageEvent<Response>);
  }
}

/** A createWorker for an encoder, and every worker it made, in order. */
export function fakeWorkers<Request extends { id: number }, Response extends { id: number }>() {
  const workers: FakeJobWorker<Request, Response>[] = [];
  const createWorker = () => {
    const worker = new FakeJobWorker<Request, Response>();
    workers.push(worker);
    return worker;
  };
  return { workers, createWorker };
}
