/**
 * The surroundings of a message session for the WebSocket unit tests: the real frame core (its scheduler,
 * streams and replies) in front of a stand-in executor that answers a frame only when the test says so, and
 * with what (so a test decides when "inference" ends and how, without running any), an admission that takes
 * any bytes, and the session options around it. The frame core's own tests use the executor alone.
 */
import type { FrameResult } from '@sightline/shared/model';
import type { AdmittedFrame } from '../../src/admission/frame-admission.ts';
import { FrameService } from '../../src/frames/frame-service.ts';
import type { PendingFrame } from '../../src/frames/pending-frame.ts';
import { createLogger } from '../../src/logger.ts';
import { createMetrics } from '../../src/metrics.ts';
import type { ModelSpec } from '../../src/models/manifest.ts';
import type { Place } from '../../src/inference/inference-schedule.ts';
import { FairScheduler, type FrameExecutor } from '../../src/scheduling/fair-scheduler.ts';
import type { MessageSessionOptions } from '../../src/sessions/message-session.ts';

/** What the stand-in answers every frame with: no detections on a 4x4 image, every stage free. */
export const HELD_RESULT: FrameResult = {
  width: 4,
  height: 4,
  detections: [],
  decoder: 'turbo',
  stages: { decodeMs: 0, preprocessMs: 0, inferenceMs: 0, postprocessMs: 0 },
};

const STAND_IN_SPEC = { manifest: { name: 'm' }, scoreThreshold: 0.5 } as unknown as ModelSpec;

/** Any bytes, admitted as a small JPEG of the stand-in model at no decode cost. */
function admitAnything(request: { image: Uint8Array; threshold?: number | undefined }): AdmittedFrame {
  return {
    spec: STAND_IN_SPEC,
    threshold: request.threshold ?? 0.5,
    decodeBytes: 0,
    frame: {
      kind: 'encoded',
      bytes: request.image,
      header: { format: 'jpeg', width: 4, height: 4, oriented: true, orientation: 1 },
      plan: { kind: 'sharp-native', placement: { contentWidth: 4, contentHeight: 4, offsetX: 0, offsetY: 0 } },
    },
  } as AdmittedFrame;
}

export class HeldFrames implements FrameExecutor<PendingFrame, FrameResult> {
  /** Runs handed over and not answered yet, oldest first. */
  private readonly held: Array<{ worker: number; answer: (outcome: FrameResult | Error) => void }> = [];
  private readonly busy = new Set<number>();
  private readonly listeners: (() => void)[] = [];
  private calls = 0;
  private readonly callWaiters: Array<{ count: number; resolve: () => void }> = [];

  constructor(readonly places = 4) {}

  get freePlaces(): number {
    return this.places - this.busy.size;
  }
  placeFor(): Place | undefined {
    for (let worker = 0; worker < this.places; worker++) if (!this.busy.has(worker)) return { worker, wide: false };
    return undefined;
  }
  batchLimit(): number {
    return 1;
  }
  batchesWith(): boolean {
    return false;
  }
  onFree(listener: () => void): void {
    this.listeners.push(listener);
  }
  run(place: Place, items: readonly PendingFrame[]): Promise<Array<FrameResult | Error>> {
    this.busy.add(place.worker);
    const done = new Promise<Array<FrameResult | Error>>((resolve) => {
      this.held.push({
        worker: place.worker,
        answer: (outcome) => {
          this.busy.delete(place.worker);
          resolve(items.map(() => outcome));
          for (const listener of this.listeners) listener();
        },
      });
    });
    this.calls++;
    for (const waiter of this.callWaiters.filter((w) => this.calls >= w.count)) {
      this.callWaiters.splice(this.callWaiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    return done;
  }

  /** The frame core in front of this executor, as the gateway builds it. */
  frameService(queue: { budgetMs: number; maxWaiting: number }): FrameService {
    return new FrameService(new FairScheduler<PendingFrame, FrameResult>(queue, this), admitAnything);
  }

  /** Answers the oldest run it holds: every frame of it with `outcome`, the result or the error its worker gave. */
  answerOldest(outcome: FrameResult | Error = HELD_RESULT): void {
    const run = this.held.shift();
    if (!run) throw new Error('the stand-in executor holds no frame');
    run.answer(outcome);
  }

  /** Runs handed over and not answered yet. */
  get holding(): number {
    return this.held.length;
  }

  /** Resolves once `count` frames in all have been handed to it. */
  whenCalled(count: number): Promise<void> {
    if (this.calls >= count) return Promise.resolve();
    return new Promise((resolve) => this.callWaiters.push({ count, resolve }));
  }
}

/**
 * Session options around `held`, with limits no test reaches unless it sets them; each test gives its own
 * queue (its budget and how many frames may wait), per-connection limits and instance name, and whatever
 * else it changes.
 */
export function heldSessionOptions(
  held: HeldFrames,
  own: Pick<MessageSessionOptions, 'limits' | 'instance'> & { queue: { budgetMs: number; maxWaiting: number } } & Partial<
      Omit<MessageSessionOptions, 'frames'>
    >,
): Omit<MessageSessionOptions, 'transport'> & { transport?: string } {
  const { queue, ...rest } = own;
  return {
    frames: held.frameService(queue),
    maxBufferedBytes: 1024 * 1024,
    maxMessagesPerSecond: 100,
    models: () => ({ defaultModel: 'm', models: ['m'] }),
    logger: createLogger('silent'),
    metrics: own.metrics ?? createMetrics(),
    ...rest,
  };
}
