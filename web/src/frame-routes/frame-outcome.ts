/**
 * A frame's fate on any route: the gateway over the WebSocket, the model on this device, and whatever joins
 * them (a remote engine, a tracker). One type, so samples, the latest result, the overlay, the logs and the
 * statistics read every route the same way; what only a route on the wire has (codec, bytes, the server's
 * own time) is optional, not a second type.
 */
import type { FrameResult } from '@sightline/shared/model';
import type { StreamCodec } from '../transport/stream-codecs.ts';
import type { Transport } from '../transport/transports.ts';
import type { FrameRoute } from './run-on.ts';

export type OutcomeKind = 'ok' | 'dropped' | 'error' | 'lost';

/** A frame handed to a route. */
export interface SentFrame {
  /** Message id, unique per page load across every route (and the pings). */
  id: number;
  /** The route it took; `path` is that route's name in samples, exports and the page's `data-path`. */
  path: FrameRoute;
  /** The model asked for; undefined: the gateway's default. */
  model: string | undefined;
  threshold: number | undefined;
  /** performance.now() when it was handed over (gateway: just before its message was encoded, the `ts` it carries). */
  sentAt: number;
  /** Source frames skipped on the client since the previous frame was sent (SkipCounter). */
  skippedBefore: number;
  /** When the picture was taken, page clock (capture/frame-times.ts): the answer belongs to that moment, not to its arrival. */
  capturedAt: number;
  /** Routes on the wire: the frame's codec (a JPEG in a wire codec, or a video codec), its size, and the time spent encoding it. */
  codec?: StreamCodec;
  /** Routes on the wire: the WebSocket, or a WebRTC peer connection (a data channel, or the video track). */
  transport?: Transport;
  bytesUp?: number;
  encodeMs?: number;
}

/**
 * What a route found in a frame, and where the time went: the shared frame function's result (less which
 * decoder made the pixels, which no route reports) with the model that ran and, on a route with a server,
 * its own times.
 */
export interface RouteResult extends Omit<FrameResult, 'decoder'> {
  /** The model that ran. */
  model: string;
  /** Routes with a server: receipt to reply, and the wait before decoding began. */
  serverMs?: number;
  queueMs?: number;
}

/** A problem of the dashboard's own worth a notice (not an error the gateway answered): a frame given up, an on-device failure. */
export interface FrameNotice {
  code: string;
  message: string;
}

interface OutcomeBase<F extends SentFrame> {
  frame: F;
  /** performance.now() when the answer arrived, or the frame was given up. */
  answeredAt: number;
  /** Size of the answer on the wire (routes on the wire; 0 when there was none). */
  bytesDown?: number;
  notice?: FrameNotice;
}

export type FrameOutcome<F extends SentFrame = SentFrame> =
  | (OutcomeBase<F> & { kind: 'ok'; result: RouteResult })
  | (OutcomeBase<F> & {
      kind: Exclude<OutcomeKind, 'ok'>;
      /** The error code, the drop reason, or `no_answer` for a lost frame. */
      reason: string;
      /** What went wrong, in words. */
      message?: string;
      /** A refusal's "not before": the gateway's estimate of when it has room, ms after the answer arrived. */
      retryAfterMs?: number;
    });
