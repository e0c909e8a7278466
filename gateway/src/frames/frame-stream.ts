/**
 * One client's stream of frames (a WebSocket connection, a data channel, a video track): its lane in the
 * gateway's one queue, and its tracks. Frames pushed are answered through their own FrameAnswer, exactly
 * once, by whichever comes first: detections (with track ids when the client asked for tracking), a drop
 * (`superseded` by its own newer frame, `overloaded` on receipt with `retryAfterMs`, `shutting_down`), or an
 * error. A stream that belongs to a camera hands every detected frame, once it is answered, to the detections
 * tap; it is tracked when the client asked or when a tap consumer needs the camera's tracks (it has rules).
 */
import type { DropReason } from '@sightline/shared/protocol';
import type { FrameResult } from '@sightline/shared/model';
import type { AdmittedFrame } from '../admission/frame-admission.ts';
import type { FairScheduler, Lane } from '../scheduling/fair-scheduler.ts';
import { ConnectionTracks } from '../tracking/connection-tracks.ts';
import type { DetectionsTap } from './detections-tap.ts';
import type { Detected, FrameAnswer, PendingFrame } from './pending-frame.ts';

export interface StreamOptions {
  /** Frames processed at once. */
  maxInFlight: number;
  /** Frames that may wait; the newest wins. */
  queueLength: number;
  /** Detections carry the id of the track each belongs to. */
  tracking?: boolean;
  /** The camera the stream belongs to: its detected frames pass the detections tap. */
  camera?: string | undefined;
}

/**
 * Where a camera's stream hands its detected frames: as one tap stream per model, since each model has a tracker
 * of its own (a client that switches models starts new track ids, which must not be taken for the old ones).
 */
interface CameraTap {
  camera: string;
  streams: Map<string, number>;
  tap: DetectionsTap;
}

/** Turns a scheduled frame's outcome into its answer (the frame service's: engine health, queueMs). */
export type Completion = (frame: PendingFrame, outcome: FrameResult | Error, startedAt: number) => void;

export class FrameStream {
  private readonly lane: Lane<PendingFrame, FrameResult>;
  /** Made with the first frame that needs tracks (the client asked, or rules for its camera appeared). */
  private tracks: ConnectionTracks | undefined;
  private readonly tracking: boolean;
  private readonly cameraTap: CameraTap | undefined;
  private ended = false;

  constructor(
    private readonly scheduler: FairScheduler<PendingFrame, FrameResult>,
    options: StreamOptions,
    complete: Completion,
    tap?: DetectionsTap,
  ) {
    this.tracking = options.tracking ?? false;
    this.cameraTap = tap && options.camera !== undefined ? { camera: options.camera, streams: new Map(), tap } : undefined;
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
      answer: this.tracking || this.cameraTap ? this.tracked(answer, times.capturedAt) : answer,
    };
    this.lane.push(frame);
  }

  /** Waiting frames, and every later one, are answered `reason`; frames being processed finish. */
  close(reason: DropReason): void {
    this.lane.close(reason);
  }

  /** The client is gone: what waits is forgotten, not answered; its tracks end. */
  detach(): void {
    this.lane.detach();
    if (this.cameraTap && !this.ended) {
      this.ended = true;
      const { camera, streams, tap } = this.cameraTap;
      for (const stream of streams.values()) tap.streamEnded(camera, stream);
    }
  }

  /** Resolves once nothing of this stream waits or is processed. */
  whenIdle(): Promise<void> {
    return this.lane.whenIdle();
  }

  /** The answer, with track ids for the client that asked, then the frame handed to the tap. */
  private tracked(answer: FrameAnswer, capturedAt: number): FrameAnswer {
    return {
      detected: (detected) => {
        // Asked once a frame: rules may appear (or go) for the camera while the stream runs.
        const rulesWantTracks = this.cameraTap?.tap.wantsTracks(this.cameraTap.camera) ?? false;
        const tracked = this.tracking || rulesWantTracks ? this.withTracks(detected, capturedAt) : detected;
        answer.detected(this.tracking ? tracked : detected);
        this.publish(tracked, capturedAt, rulesWantTracks);
      },
      dropped: (reason, retryAfterMs) => answer.dropped(reason, retryAfterMs),
      failed: (error) => answer.failed(error),
    };
  }

  /** The detections with their track ids (tracks kept while the client asked or a tap consumer needs them). */
  private withTracks(detected: Detected, capturedAt: number): Detected {
    this.tracks ??= new ConnectionTracks();
    const detections = this.tracks.identify(detected.model, detected.result.detections, capturedAt);
    return { ...detected, result: { ...detected.result, detections } };
  }

  private publish(detected: Detected, capturedAt: number, rulesWantTracks: boolean): void {
    if (!this.cameraTap) return;
    const { camera, streams, tap } = this.cameraTap;
    let stream = streams.get(detected.model);
    if (stream === undefined) streams.set(detected.model, (stream = tap.openStream()));
    const { result } = detected;
    // The filtered boxes only for a consumer that tracks this camera: the rules anchor on them.
    const trackBoxes = this.tracks && rulesWantTracks ? this.tracks.trackBoxes(detected.model, capturedAt) : undefined;
    tap.publish({
      camera,
      stream,
      model: detected.model,
      capturedAt,
      detectedAt: Date.now(),
      width: result.width,
      height: result.height,
      detections: result.detections,
      ...(trackBoxes ? { trackBoxes } : {}),
    });
  }
}
