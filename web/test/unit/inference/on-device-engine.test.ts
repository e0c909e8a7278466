import { describe, expect, it } from 'vitest';
import { OnDeviceEngine, type InferenceWorkerLike, type OnDeviceChange } from '../../../src/inference/on-device-engine.ts';
import type { LoadedReply, WorkerReply, WorkerRequest } from '../../../src/inference/worker-protocol.ts';
import type { FrameOutcome } from '../../../src/frame-routes/frame-outcome.ts';
import type { FrameRequest } from '../../../src/frame-routes/route-port.ts';
import { FakeClock } from '../../support/fake-clock.ts';
import { modelInfo } from '../../support/models.ts';

class FakeWorker implements InferenceWorkerLike {
  onmessage: ((event: MessageEvent<WorkerReply>) => void) | null = null;
  onerror: ((event: ErrorEvent) => void) | null = null;
  readonly posted: { message: WorkerRequest; transfer: Transferable[] }[] = [];
  terminated = false;
  postMessage(message: WorkerRequest, transfer: Transferable[] = []): void {
    this.posted.push({ message, transfer });
  }
  terminate(): void {
    this.terminated = true;
  }
  reply(data: WorkerReply): void {
    this.onmessage?.({ data } as MessageEvent<WorkerReply>);
  }
  fail(message: string): void {
    this.onerror?.({ message, preventDefault: () => undefined } as ErrorEvent);
  }
}

const loaded = (overrides: Partial<LoadedReply> = {}): LoadedReply => ({
  type: 'loaded',
  model: 'ssd',
  backend: 'wasm',
  threads: 2,
  crossOriginIsolated: true,
  file: { bytes: 1234, source: 'network', fetchMs: 80, verifyMs: 5 },
  sessionMs: 300,
  warmupMs: 100,
  ...overrides,
});

function setup(environment = { crossOriginIsolated: true, hardwareConcurrency: 3, allowWebGpu: true }) {
  const clock = new FakeClock(1000);
  const workers: FakeWorker[] = [];
  const changes: OnDeviceChange[] = [];
  const outcomes: FrameOutcome[] = [];
  let id = 0;
  const engine = new OnDeviceEngine({
    createWorker: () => {
      const worker = new FakeWorker();
      workers.push(worker);
      return worker;
    },
    clock,
    nextId: () => ++id,
    environment: () => environment,
    timeoutMs: 5000,
  });
  engine.changed.subscribe((change) => changes.push(change));
  engine.settled.subscribe((outcome) => outcomes.push(outcome));
  const worker = () => workers[workers.length - 1]!;
  /** Sets the next message id, as the gateway's frames and the pings move it on. */
  const nextIdIs = (next: number) => (id = next - 1);
  return { engine, clock, workers, worker, changes, outcomes, nextIdIs };
}

const request = (threshold = 0.5, skippedBefore = 0, capturedAt = 0): FrameRequest => ({
  model: undefined,
  threshold,
  skippedBefore,
  capturedAt,
});

const target = (threads: 'auto' | number = 'auto') => ({ model: modelInfo(), threads });

describe('OnDeviceEngine', () => {
  it('loads the model in a worker with the threads this page may use, and reports download and load time', () => {
    const h = setup();
    h.engine.configure(target());
    expect(h.workers).toHaveLength(1);
    expect(h.worker().posted[0]!.message).toMatchObject({ type: 'load', threads: 2, allowWebGpu: true, model: { name: 'ssd' } });
    expect(h.engine.state).toMatchObject({ status: 'loading', model: 'ssd' });
    h.worker().reply({ type: 'progress', model: 'ssd', loadedBytes: 600, totalBytes: 1234 });
    expect(h.engine.state.progress).toEqual({ loadedBytes: 600, totalBytes: 1234 });
    h.clock.advance(450);
    h.worker().reply(loaded());
    expect(h.engine.available).toBe(true);
    expect(h.engine.state).toMatchObject({ status: 'ready', backend: 'wasm', threads: 2, loadMs: 450, file: { bytes: 1234 } });
    // Asking again for what is loaded changes nothing.
    h.engine.configure(target());
    expect(h.worker().posted).toHaveLength(1);
    // Each change says what it was before: progress within loading, then loading -> ready.
    expect(h.changes.map(({ previous, state }) => `${previous.status}->${state.status}`)).toEqual([
      'off->loading',
      'loading->loading',
      'loading->ready',
    ]);
  });

  it('runs one frame at a time, handing over a copy of its bytes, and reports its result', () => {
    const h = setup();
    h.engine.configure(target());
    h.worker().reply(loaded());
    const image = new Uint8Array([1, 2, 3]);
    h.nextIdIs(7);
    // The picture's capture time goes with the frame: its answer is tracked under it.
    const frame = h.engine.send(image, request(0.6, 1, 950))!;
    expect(frame).toEqual({ id: 7, path: 'device', model: 'ssd', sentAt: 1000, threshold: 0.6, skippedBefore: 1, capturedAt: 950 });
    expect(h.engine.inFlight).toBe(1);
    expect(h.engine.canSend()).toBe(false);
    expect(h.engine.send(image, request(0.6))).toBeUndefined();
    const posted = h.worker().posted[1]!;
    expect(posted.message).toMatchObject({ type: 'detect', id: 7, threshold: 0.6 });
    expect(posted.transfer).toHaveLength(1);
    expect(image).toEqual(new Uint8Array([1, 2, 3])); // the caller's bytes stay usable
    h.clock.advance(40);
    const timings = { decodeMs: 2, preprocessMs: 1, inferenceMs: 30, postprocessMs: 1 };
    h.worker().reply({ type: 'result', id: 7, model: 'ssd', width: 400, height: 300, detections: [], timings });
    expect(h.outcomes).toEqual([
      { kind: 'ok', answeredAt: 1040, frame, result: { model: 'ssd', width: 400, height: 300, detections: [], stages: timings } },
    ]);
    expect(h.engine.inFlight).toBe(0);
  });

  it('uses one thread without cross-origin isolation; a new thread count starts a new worker', () => {
    const h = setup({ crossOriginIsolated: false, hardwareConcurrency: 8, allowWebGpu: false });
    h.engine.configure(target(4));
    expect(h.worker().posted[0]!.message).toMatchObject({ threads: 1, allowWebGpu: false });

    const isolated = setup();
    isolated.engine.configure(target(1));
    isolated.worker().reply(loaded({ threads: 1 }));
    isolated.engine.configure(target(2));
    expect(isolated.workers).toHaveLength(2);
    expect(isolated.workers[0]!.terminated).toBe(true);
    expect(isolated.worker().posted[0]!.message).toMatchObject({ type: 'load', threads: 2 });
  });

  it('reloads in the same worker for another model; the frame in flight still comes back', () => {
    const h = setup();
    h.engine.configure(target());
    h.worker().reply(loaded());
    h.engine.send(new Uint8Array(1), request());
    const other = modelInfo({ name: 'other', title: 'Other' });
    h.engine.configure({ model: other, threads: 'auto' });
    expect(h.workers).toHaveLength(1);
    expect(h.worker().posted.at(-1)!.message).toMatchObject({ type: 'load', model: { name: 'other' } });
    expect(h.engine.available).toBe(false);
    // The worker runs the frame before the load: its result (of the old model) is recorded.
    const timings = { decodeMs: 1, preprocessMs: 1, inferenceMs: 1, postprocessMs: 1 };
    h.worker().reply({ type: 'result', id: 1, model: 'ssd', width: 4, height: 3, detections: [], timings });
    expect(h.outcomes).toMatchObject([{ kind: 'ok', frame: { id: 1 } }]);
    // A late "loaded" of the old model is ignored.
    h.worker().reply(loaded());
    expect(h.engine.state.status).toBe('loading');
    h.worker().reply(loaded({ model: 'other' }));
    expect(h.engine.state).toMatchObject({ status: 'ready', model: 'other' });
  });

  it('loses the frame in flight when a new thread count replaces the worker', () => {
    const h = setup();
    h.engine.configure(target(1));
    h.worker().reply(loaded({ threads: 1 }));
    h.nextIdIs(2);
    h.engine.send(new Uint8Array(1), request());
    h.engine.configure(target(2));
    expect(h.outcomes).toMatchObject([
      {
        kind: 'lost',
        frame: { id: 2 },
        reason: 'no_answer',
        message: expect.stringMatching(/thread count/),
        notice: {
          code: 'on_device_lost',
          message: expect.stringMatching(/^A frame got no result on this device \(.*thread count\): counted as lost\.$/),
        },
      },
    ]);
  });

  it('says why a model cannot run here, and fails with the reason when loading fails; retry starts over', () => {
    const h = setup();
    const { onDevice: _, ...withoutFile } = modelInfo();
    h.engine.configure({ model: withoutFile, threads: 'auto' });
    expect(h.engine.state).toMatchObject({ status: 'unavailable', reason: expect.stringMatching(/does not serve/) });
    expect(h.workers).toHaveLength(0);

    h.engine.configure(target());
    h.worker().reply({ type: 'load_failed', model: 'ssd', message: 'checksum mismatch' });
    expect(h.engine.state).toMatchObject({ status: 'error', reason: 'could not load ssd on this device: checksum mismatch' });
    expect(h.worker().terminated).toBe(true);
    // Not retried by every settings change: only by Retry.
    h.engine.configure(target());
    expect(h.workers).toHaveLength(1);
    h.engine.retry(target());
    expect(h.workers).toHaveLength(2);
    expect(h.engine.state.status).toBe('loading');
  });

  it('treats a worker that fails to start as an error', () => {
    const h = setup();
    h.engine.configure(target());
    h.worker().fail('blocked by policy');
    expect(h.engine.state).toMatchObject({ status: 'error', reason: 'the inference worker failed: blocked by policy' });
  });

  it('gives up on a frame with no result in time, and loads the model again in a fresh worker', () => {
    const h = setup();
    h.engine.configure(target());
    h.worker().reply(loaded());
    h.nextIdIs(3);
    h.engine.send(new Uint8Array(1), request());
    h.clock.advance(5000);
    expect(h.outcomes).toMatchObject([{ kind: 'lost', frame: { id: 3 }, answeredAt: 6000 }]);
    expect(h.workers).toHaveLength(2);
    expect(h.workers[0]!.terminated).toBe(true);
    expect(h.engine.state.status).toBe('loading');
    expect(h.worker().posted[0]!.message).toMatchObject({ type: 'load', threads: 2 });
  });

  it('reports a failed frame, and stop ends the worker', () => {
    const h = setup();
    h.engine.configure(target());
    h.worker().reply(loaded());
    h.nextIdIs(4);
    h.engine.send(new Uint8Array(1), request());
    h.worker().reply({ type: 'failed', id: 4, message: 'bad image' });
    expect(h.outcomes).toMatchObject([
      {
        kind: 'error',
        reason: 'on_device_error',
        message: 'bad image',
        notice: { code: 'on_device_error', message: 'On-device inference failed: bad image' },
      },
    ]);
    h.engine.stop();
    expect(h.worker().terminated).toBe(true);
    expect(h.engine.state.status).toBe('off');
    expect(h.engine.available).toBe(false);
  });
});
