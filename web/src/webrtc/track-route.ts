/**
 * The camera as a WebRTC video track, as a frame route: the browser sends every camera frame on the track
 * (WebRTC's own encoder, pacing and congestion control), so the stream loop hands this route nothing (it is
 * never `available` to the dispatcher); the gateway detects the newest decoded picture and names it in a
 * `detections` message on the `detections` channel by its RTP timestamp. Each one is matched to its frame in
 * the sender's log (rtp-frame-log.ts: send and capture time, size) and settled like a WebSocket frame's answer,
 * so the samples, the chart, the latency split and tracking read it the same way. The frames sent before it
 * that no detection named are settled `dropped` (`not_detected`: a newer picture was detected instead, or the
 * gateway could not use them); frames still unnamed when the connection ends, or after the answer timeout,
 * are lost. A detection can overtake its own frame's report: the tap's message to the page and the data
 * channel's are two task queues, and a page busy for longer than the gateway's round trip may run the
 * second first. Such a detection waits (up to REPORT_WAIT_MS) for its frame to be recorded.
 */
import type { DetectionsMessage, VideoCodec } from '@sightline/shared/protocol';
import { Signal, type Subscribable } from '../events/signal.ts';
import type { FrameOutcome, SentFrame } from '../frame-routes/frame-outcome.ts';
import type { RoutePort } from '../frame-routes/route-port.ts';
import { resultOf } from '../transport/frame-sender.ts';
import type { ConnectionStatus } from '../transport/gateway-socket.ts';
import type { RtpFrameLog, SentVideoFrame } from './rtp-frame-log.ts';

/** A frame of the track as the samples see it: on the wire, over WebRTC, in a video codec. */
export type TrackFrame = SentFrame & { path: 'gateway'; transport: 'webrtc'; codec: VideoCodec; bytesUp: number };

export type TrackOutcome = FrameOutcome<TrackFrame>;

/** Why a frame the track carried got no detections of its own. */
export const NOT_DETECTED = 'not_detected';

/** How long a detection waits for the report of the frame it names before it counts as unmatched. */
export const REPORT_WAIT_MS = 2000;

interface WaitingDetection {
  message: DetectionsMessage;
  bytes: number;
  receivedAt: number;
}

/** The part of the peer link the route reads. */
export interface TrackLink {
  readonly statusChanged: Subscribable<ConnectionStatus>;
  /** `detections` messages from the `detections` channel, with their arrival time and size. */
  readonly detections: Subscribable<{ message: DetectionsMessage; bytes: number; receivedAt: number }>;
  /** Encoded frames as they leave the sender, send time on the page clock. */
  readonly encodedFrames: Subscribable<{ rtpTimestamp: number; sentAt: number; bytes: number; key: boolean }>;
}

export interface TrackRouteOptions {
  log: RtpFrameLog;
  /** Message ids, shared with every other frame and ping, so a sample's id names one frame. */
  nextId: () => number;
  /** What the track carries now. */
  codec: () => VideoCodec;
  /** The model and threshold the dashboard asks for (the track's frames carry none: the gateway names the model that ran). */
  model: () => string | undefined;
  threshold: () => number;
  now: () => number;
}

export class TrackRoute implements RoutePort {
  readonly id = 'gateway';
  readonly changed = new Signal<void>();
  readonly settled = new Signal<TrackOutcome>();
  /** Detections that named no frame the log holds (sent before a reconnect, or older than the log). */
  unmatched = 0;
  /** Detections that arrived before the report of their frame, and were matched once it came. */
  overtaken = 0;
  /** Detections waiting for their frame's report, by RTP timestamp. */
  private waiting = new Map<number, WaitingDetection>();

  constructor(
    link: TrackLink,
    private readonly options: TrackRouteOptions,
  ) {
    link.encodedFrames.subscribe((report) => {
      options.log.record(report);
      const early = this.waiting.get(report.rtpTimestamp);
      if (!early) return;
      this.waiting.delete(report.rtpTimestamp);
      this.overtaken++;
      this.detected(early.message, early.bytes, early.receivedAt);
    });
    link.detections.subscribe(({ message, bytes, receivedAt }) => this.detected(message, bytes, receivedAt));
    link.statusChanged.subscribe((status) => {
      // Whatever was still waiting for its detections will not get them on the next connection.
      if (status.state !== 'open') {
        this.unmatched += this.waiting.size;
        this.waiting.clear();
        this.giveUp(options.log.reset(), this.options.now());
      }
      this.changed.emit();
    });
  }

  /** The stream loop hands this route no frames: the camera goes on the track by itself. */
  get available(): boolean {
    return false;
  }

  get inFlight(): number {
    return 0;
  }

  canSend(): boolean {
    return false;
  }

  send(): undefined {
    return undefined;
  }

  /**
   * Gives up on frames no detection named for longer than `timeoutMs` (the answer watchdog), and on detections
   * whose frame's report did not come within REPORT_WAIT_MS.
   */
  expire(timeoutMs: number): void {
    const now = this.options.now();
    this.giveUp(this.options.log.expire(now, timeoutMs), now);
    for (const [rtp, early] of this.waiting) {
      if (now - early.receivedAt < REPORT_WAIT_MS) continue;
      this.waiting.delete(rtp);
      this.unmatched++;
    }
  }

  private detected(message: DetectionsMessage, bytes: number, receivedAt: number): void {
    if (message.rtpTimestamp === undefined) {
      this.unmatched++;
      return;
    }
    if (!this.options.log.has(message.rtpTimestamp)) {
      // Its frame's report may still be on its way (see above): it is matched when that comes.
      this.waiting.set(message.rtpTimestamp, { message, bytes, receivedAt });
      return;
    }
    const { frame, passedOver } = this.options.log.take(message.rtpTimestamp);
    for (const skipped of passedOver) {
      this.settled.emit({ frame: this.frameOf(skipped), kind: 'dropped', answeredAt: receivedAt, bytesDown: 0, reason: NOT_DETECTED });
    }
    if (!frame) {
      this.unmatched++;
      return;
    }
    this.settled.emit({
      frame: this.frameOf(frame, message.model),
      kind: 'ok',
      answeredAt: receivedAt,
      bytesDown: bytes,
      result: resultOf(message),
    });
  }

  private giveUp(frames: readonly SentVideoFrame[], at: number): void {
    for (const frame of frames) {
      this.settled.emit({ frame: this.frameOf(frame), kind: 'lost', answeredAt: at, bytesDown: 0, reason: 'no_answer' });
    }
  }

  private frameOf(sent: SentVideoFrame, model = this.options.model()): TrackFrame {
    return {
      id: this.options.nextId(),
      path: 'gateway',
      transport: 'webrtc',
      codec: this.options.codec(),
      model,
      threshold: this.options.threshold(),
      sentAt: sent.sentAt,
      capturedAt: sent.capturedAt,
      skippedBefore: 0,
      bytesUp: sent.bytes,
      encodeMs: 0,
    };
  }
}
