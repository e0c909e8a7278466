/**
 * The frame core every way in plugs into: the WebSocket and a WebRTC data channel (a stream of frame
 * messages), HTTP (one frame per request), a video stream (decoded pictures). An adapter admits each frame
 * here on receipt (admission/frame-admission.ts), then either pushes it onto a stream it opened (a lane in
 * the one queue, with the stream's tracks) or runs it once; it is answered through its FrameAnswer exactly
 * once. The scheduler starts frames straight on the inference workers; what comes back is turned into a
 * `Detected` here, once: the model and where it ran, the frame path's result, and its wait from receipt to
 * its run on one clock. A remote engine's health follows every answer (its circuit breaker).
 */
import type { FrameResult } from '@sightline/shared/model';
import { ProtocolError } from '@sightline/shared/validation';
import type { AdmittedFrame, FrameRequest } from '../admission/frame-admission.ts';
import type { EngineMonitor } from '../engines/engine-monitor.ts';
import type { FairScheduler } from '../scheduling/fair-scheduler.ts';
import type { DetectionsTap } from './detections-tap.ts';
import { FrameStream, type StreamOptions } from './frame-stream.ts';
import type { Detected, FrameAnswer, PendingFrame } from './pending-frame.ts';

export type FrameScheduler = FairScheduler<PendingFrame, FrameResult>;

/** The checks on receipt (admission/frame-admission.ts `admitFrame`, with the gateway's registry and limits). */
export type Admission = (request: FrameRequest) => AdmittedFrame;

export class FrameService {
  constructor(
    readonly scheduler: FrameScheduler,
    /** Throws ProtocolError `unknown_model`, `unavailable`, `bad_image`, `too_large`. */
    readonly admit: Admission,
    private readonly engines?: EngineMonitor,
    /** Where every detected frame of a camera's stream passes (the events' rule engine subscribes). */
    readonly tap?: DetectionsTap,
  ) {}

  /** A lane of its own in the queue, for a client that sends a stream of frames. */
  openStream(options: StreamOptions): FrameStream {
    return new FrameStream(this.scheduler, options, (frame, outcome, startedAt) => this.complete(frame, outcome, startedAt), this.tap);
  }

  /**
   * One frame that is not part of a stream (an HTTP request): it waits its turn by the same rules. Throws
   * ProtocolError `overloaded` with retryAfterMs when it is refused or dropped, or the frame's own error.
   */
  detectOnce(admitted: AdmittedFrame, receivedAt: number): Promise<Detected> {
    return new Promise<Detected>((resolve, reject) => {
      const answer: FrameAnswer = {
        detected: resolve,
        failed: reject,
        dropped: (reason, retryAfterMs) =>
          reject(
            new ProtocolError(
              'overloaded',
              reason === 'shutting_down'
                ? 'the gateway is shutting down; retry on another instance'
                : 'the gateway cannot start this frame within its latency budget; retry later',
              undefined,
              retryAfterMs ?? this.scheduler.retryAfterMs(),
            ),
          ),
      };
      // A stream of one: its lane leaves the queue as soon as the frame is answered.
      const stream = this.openStream({ maxInFlight: 1, queueLength: 1 });
      const once: FrameAnswer = {
        detected: (detected) => (stream.detach(), answer.detected(detected)),
        dropped: (reason, retryAfterMs) => (stream.detach(), answer.dropped(reason, retryAfterMs)),
        failed: (error) => (stream.detach(), answer.failed(error)),
      };
      stream.push(admitted, once, { receivedAt, capturedAt: 0 });
    });
  }

  private complete(frame: PendingFrame, outcome: FrameResult | Error, startedAt: number): void {
    const { spec } = frame;
    if (spec.engine) {
      if (outcome instanceof ProtocolError && outcome.code === 'unavailable') this.engines?.failed(spec.manifest.name, outcome.message);
      else if (!(outcome instanceof Error)) this.engines?.succeeded(spec.manifest.name);
    }
    if (outcome instanceof Error) {
      frame.answer.failed(outcome);
      return;
    }
    frame.answer.detected({
      model: spec.manifest.name,
      runner: spec.engine ? 'remote' : 'local',
      result: outcome,
      queueMs: startedAt - frame.receivedAt,
    });
  }
}
