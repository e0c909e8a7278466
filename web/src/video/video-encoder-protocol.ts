/** Messages between the page and the video encoder worker (video-encoder.worker.ts). */
import type { VideoCodec } from '@sightline/shared/protocol';

export interface VideoEncodeRequest {
  id: number;
  /** Transferred: the worker closes it. */
  source: VideoFrame | ImageBitmap;
  /** The size to encode at (even; the encoder is configured for it). */
  width: number;
  height: number;
  codec: VideoCodec;
  bitrateKbps: number;
  keyFrame: boolean;
  /** The frame's timestamp for the encoder's rate control, µs, growing from frame to frame. */
  timestampUs: number;
}

export type VideoEncodeResponse =
  | {
      id: number;
      ok: true;
      /** The encoded frame (null: the encoder dropped this frame, as a realtime encoder may to hold its bitrate). */
      data: ArrayBuffer | null;
      /** A keyframe: asked for, or the first output of a (re)configured encoder. */
      key: boolean;
    }
  | { id: number; ok: false; error: string };
