/**
 * One client's stream of frames (a WebSocket connection, a data channel, a video track): its lane in the
 * gateway's one queue, and its tracks. Frames pushed are answered through their own FrameAnswer, exactly
 * once, by whichever comes first: detections (with track ids when the stream tracks), a drop (`superseded`
 * by its own newer frame, `overloaded` on receipt with `retryAfterMs`, `shutting_down`), or an error.
 */
import type { DropReason } from '@sightline/shared/protocol';
import type { FrameResult } from '@sightline/shared/model';
import type { AdmittedFrame } from '../admission/frame-admission.ts';
import type { FairScheduler, Lane } from '../scheduling/fair-scheduler.ts';
import { ConnectionTracks } from '../tracking/connection-tracks.ts';
import { mapDetected, type FrameAnswer, type PendingFrame } from './pending-frame.ts';

export interface StreamOptions {
  /** Frames processed at once. */
  maxInFlight: number;
  /** Frames that may wait; the newest wins. */
  queueLength: number;
  /** Detections carry the id of the track each belongs to. */
  tracking?: boolean;
}

/** Turns a scheduled frame's outcome into its answer (the frame service's: engine health, queueMs). */
export type Completion = (frame: PendingFrame, outcome: FrameResult | Error, startedAt: number) => void;

export class FrameStream {
  private readonly lane: Lane<PendingFrame, FrameResult>;
  private readonly tracks: ConnectionTracks | undefined;

  constructor(
    private readonly scheduler: FairScheduler<PendingFrame, FrameResult>,
    options: StreamOptions,
    complete: Completion,
  ) {
    this.tracks = options.tracking ? new ConnectionTracks() : undefined;
    this.lane = scheduler.lane({
      maxInFlight: options.maxInFlight,
      queueLength: options.queueLength,
      cost: (frame) => frame.decodeBytes,
      complete,
      drop: (frame, reason, retryAfterMs) => frame.answer.dropped(reason, retryAfterMs),
    });
  }

  /** Queues an admitted frame, or answers it at once (refused, superseded, closed). */
  push(admitted: AdmittedFrame, answer: FrameAnswer, times: { receivedAt: number; capturedAt: number }): void {
    const frame: PendingFrame = {
      model: admitted.spec.manifest.name,
      threshold: admitted.threshold,
      frame: admitted.frame,
      spec: admitted.spec,
      decodeBytes: admitted.decodeBytes,
      ...times,
      answer: this.tracks ? this.tracked(answer, times.capturedAt) : answer,
    };
    // The gateway holds as many frames waiting as it may: refused like a frame predicted to wait too long.
    if (this.lane.push(frame) === 'refused') answer.dropped('overloaded', this.scheduler.retryAfterMs());
  }

  /** Waiting frames, and every later one, are answered `reason`; frames being processed finish. */
  close(reason: DropReason): void {
    this.lane.close(reason);
  }

  /** The client is gone: what waits is forgotten, not answered. */
  detach(): void {
    this.lane.detach();
  }

  /** Resolves once nothing of this stream waits or is processed. */
  whenIdle(): Promise<void> {
    return this.lane.whenIdle();
  }

  private tracked(answer: FrameAnswer, capturedAt: number): FrameAnswer {
    const tracks = this.tracks!;
    return mapDetected(answer, (detected) => ({
      ...detected,
      result: { ...detected.result, detections: tracks.identify(detected.model, detected.result.detections, capturedAt) },
    }));
  }
}
