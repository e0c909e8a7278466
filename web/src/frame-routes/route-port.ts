/**
 * What a frame route is to the rest of the dashboard: somewhere an encoded frame can be computed. The
 * gateway (transport/gateway-route.ts) and this device (inference/on-device-engine.ts) are the two there
 * are; a remote engine or a tracker joins by implementing this, and the dispatcher, the answer recorder,
 * the samples and the statistics take it as they take those two.
 */
import type { VideoCodec } from '@sightline/shared/protocol';
import type { EncodedChunkInfo } from '../capture/frame-encoder.ts';
import type { Subscribable } from '../events/signal.ts';
import type { FrameOutcome, SentFrame } from './frame-outcome.ts';
import type { FrameRoute } from './run-on.ts';

/** What goes with a frame's bytes. */
export interface FrameRequest {
  /** The model to run; undefined: the gateway's default. */
  model: string | undefined;
  /** Minimum score 0..1. */
  threshold: number;
  /** Source frames skipped on the client since the previous frame (kept for the statistics, not sent). */
  skippedBefore: number;
  /** When the picture was taken, page clock, ms (capture/frame-times.ts): the time its answer is tracked under. */
  capturedAt: number;
  /** The bytes are a video chunk, not a JPEG: how they were encoded, and the picture's size (sent with keyframes). */
  video?: EncodedChunkInfo & { width: number; height: number };
}

/**
 * How the next frame must be encoded for the route that takes it: a JPEG, or the next chunk of a video
 * stream (a keyframe when the route's stream needs one: video/video-uplink.ts).
 */
export type FrameFormat = { kind: 'jpeg' } | { kind: 'video'; codec: VideoCodec; keyFrame: boolean };

export const JPEG_FORMAT: FrameFormat = { kind: 'jpeg' };

export interface RoutePort {
  readonly id: FrameRoute;
  /** Can take frames at all now: the gateway's socket open and greeted, the model loaded on this device. */
  readonly available: boolean;
  /** Frames handed over and not yet settled. */
  readonly inFlight: number;
  /** Room for one more frame now (its own flow control). */
  canSend(): boolean;
  /** Hands one frame over; undefined when nothing was sent. */
  send(image: Uint8Array, request: FrameRequest): SentFrame | undefined;
  /** How the next frame must be encoded; a route without it takes JPEG frames. */
  nextFormat?(): FrameFormat;
  /** Whether it is available may have changed. */
  readonly changed: Subscribable<unknown>;
  /** A frame's fate: answered, failed, or given up. Frees its place. */
  readonly settled: Subscribable<FrameOutcome>;
}
