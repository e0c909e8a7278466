/** What the person controls, with defaults. Kept in React state, pushed into the controller. */
import { DEFAULT_CAMERA } from '@sightline/shared/protocol';
import { DEFAULT_FRAME_SIZE, type FrameSize } from '../capture/frame-size.ts';
import type { ThreadsSetting } from '../inference/threads.ts';
import type { RunOn } from '../frame-routes/run-on.ts';
import type { BoxMode } from '../tracking/box-mode.ts';
import type { StreamCodec } from '../transport/stream-codecs.ts';
import type { Transport } from '../transport/transports.ts';
import { DEFAULT_VIDEO_BITRATE_KBPS } from '../video/video-bitrate.ts';

export interface StreamSettings {
  /** A JPEG per frame in a wire codec (json, msgpack), or the camera as video (vp8, vp9, h264, av1). */
  codec: StreamCodec;
  /** Alternate the codec every `abEvery` frames. */
  abMode: boolean;
  abEvery: number;
  /** 1..8 frames sent and not yet answered. */
  maxInFlight: number;
  frameSize: FrameSize;
  /** JPEG quality 0..1. */
  jpegQuality: number;
  /** Model name; undefined until the model list is known (the gateway's default is used). */
  model: string | undefined;
  /** Minimum score 0..1 sent with every frame. */
  threshold: number;
  paused: boolean;
  /** Show the picture (and boxes) mirrored, like a mirror for a selfie camera. */
  mirror: boolean;
  /** Samples per codec the stats are computed over. */
  statsWindow: number;
  /** Where frames are computed: the gateway, this device, or both in turn. */
  runOn: RunOn;
  /** WASM threads of on-device inference (used when the page is cross-origin isolated). */
  deviceThreads: ThreadsSetting;
  /** Boxes drawn predicted to the frame on screen, or as the latest answer had them. */
  boxes: BoxMode;
  /** The WebSocket, or a WebRTC peer connection (a data channel for JPEG frames, a video track for video). */
  transport: Transport;
  /** Target bitrate of the video codecs, kbit/s. */
  videoBitrate: number;
  /** The emulated link the gateway's connection (socket, WebRTC peer) runs behind: a canonical spec, `none` for none. */
  link: string;
  /**
   * The camera the stream's frames belong to (`?camera=` on the WebSocket and on WHIP): its rules (lines, zones)
   * turn them into events, and the rules, counts and events shown are that camera's. CAMERA_NAME_PATTERN.
   */
  camera: string;
}

export const DEFAULT_SETTINGS: StreamSettings = {
  codec: 'msgpack',
  abMode: false,
  abEvery: 30,
  maxInFlight: 1,
  frameSize: DEFAULT_FRAME_SIZE,
  jpegQuality: 0.8,
  model: undefined,
  threshold: 0.5,
  paused: false,
  mirror: true,
  statsWindow: 500,
  runOn: 'gateway',
  deviceThreads: 'auto',
  boxes: 'predicted',
  transport: 'websocket',
  videoBitrate: DEFAULT_VIDEO_BITRATE_KBPS,
  link: 'none',
  camera: DEFAULT_CAMERA,
};

export const STATS_WINDOWS: readonly number[] = [100, 500, 2000, 10_000];

/** Messages shown in the latency chart. */
export const CHART_WINDOW = 200;
