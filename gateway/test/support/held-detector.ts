/**
 * The surroundings of a frame session for the WebSocket unit tests: a stand-in detector that answers a
 * frame only when the test says so (so a test decides when "inference" ends, without running any), and
 * the session options around it.
 */
import { createLogger } from '../../src/logger.ts';
import { createMetrics } from '../../src/metrics.ts';
import type { Detector, DetectResult } from '../../src/frames/detector.ts';
import type { FrameSessionOptions } from '../../src/ws/frame-session.ts';

/** What the stand-in answers every frame with: no detections on a 4x4 image, every stage free. */
export const HELD_RESULT: DetectResult = {
  model: 'm',
  width: 4,
  height: 4,
  detections: [],
  decoder: 'turbo',
  runner: 'local',
  stages: { queueMs: 0, decodeMs: 0, preprocessMs: 0, inferenceMs: 0, postprocessMs: 0 },
};

export class HeldDetector {
  /** Frames handed to the detector and not answered yet, oldest first. */
  private readonly held: Array<() => void> = [];
  private calls = 0;
  private readonly callWaiters: Array<{ count: number; resolve: () => void }> = [];

  /** Admits every frame at no decode cost; each detection waits for answerOldest(). */
  readonly detector = {
    admit: (request: unknown) => ({ request, decodeBytes: 0 }),
    detect: () =>
      new Promise<DetectResult>((resolve) => {
        this.held.push(() => resolve(HELD_RESULT));
        this.calls++;
        for (const waiter of this.callWaiters.filter((w) => this.calls >= w.count)) {
          this.callWaiters.splice(this.callWaiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }),
  } as unknown as Detector;

  /** Answers the oldest frame it holds. */
  answerOldest(): void {
    const answer = this.held.shift();
    if (!answer) throw new Error('the stand-in detector holds no frame');
    answer();
  }

  /** Resolves once `count` frames in all have been handed to it. */
  whenCalled(count: number): Promise<void> {
    if (this.calls >= count) return Promise.resolve();
    return new Promise((resolve) => this.callWaiters.push({ count, resolve }));
  }
}

/**
 * Session options around `detector`, with limits no test reaches unless it sets them; each test gives its
 * own scheduler, per-connection limits and instance name, and whatever else it changes.
 */
export function heldSessionOptions(
  detector: HeldDetector,
  own: Pick<FrameSessionOptions, 'scheduler' | 'limits' | 'instance'> & Partial<FrameSessionOptions>,
): FrameSessionOptions {
  return {
    detector: detector.detector,
    maxPending: 100,
    maxBufferedBytes: 1024 * 1024,
    maxMessagesPerSecond: 100,
    models: () => ({ defaultModel: 'm', models: ['m'] }),
    logger: createLogger('silent'),
    metrics: own.metrics ?? createMetrics(),
    ...own,
  };
}
