/**
 * The camera as a video stream: each picture the stream loop takes is grabbed (a VideoFrame, zero-copy, in the
 * caller's task), transferred to a worker that scales it and encodes it with WebCodecs (video-encoder.worker.ts),
 * and comes back as one chunk: a keyframe when asked for or when the encoder was (re)configured, else a delta.
 * Every output is numbered so a sender can tell whether a delta follows the chunk it sent last
 * (video-uplink.ts). One encode at a time, like the JPEG encoder; a worker that does not answer within
 * ENCODE_TIMEOUT_MS is replaced (its successor starts with a keyframe).
 */
import type { VideoCodec } from '@sightline/shared/protocol';
import {
  ENCODE_TIMEOUT_MS,
  encodeSize,
  grabPicture,
  pictureTimestampUs,
  type EncodedFrame,
  type FrameSourceElement,
} from '../capture/frame-encoder.ts';
import type { FrameSize, ModelInput } from '../capture/frame-size.ts';
import { WorkerJobs, type JobWorker } from '../capture/worker-jobs.ts';
import { evenSize } from './video-encoder-config.ts';
import type { VideoEncodeRequest, VideoEncodeResponse } from './video-encoder-protocol.ts';

export interface VideoEncodeOptions {
  codec: VideoCodec;
  bitrateKbps: number;
  keyFrame: boolean;
}

/** The part of Worker the encoder uses (so tests can hand in a fake). */
export type VideoEncoderWorker = JobWorker<VideoEncodeRequest, VideoEncodeResponse>;

export interface VideoStreamEncoderOptions {
  createWorker?: () => VideoEncoderWorker;
  jobTimeoutMs?: number;
  /** performance.now(): the encoder's timestamps (µs) are taken from it. */
  now?: () => number;
  /** Grabs the element's picture (default: a VideoFrame, else an ImageBitmap). */
  grab?: (element: FrameSourceElement) => Promise<VideoFrame | ImageBitmap>;
}

function createVideoEncoderWorker(): VideoEncoderWorker {
  return new Worker(new URL('./video-encoder.worker.ts', import.meta.url), { type: 'module', name: 'video-encoder' });
}

/** Whether this browser can encode video in a worker at all (WebCodecs); which codecs: codec-availability.ts. */
export function videoEncodingSupported(): boolean {
  return typeof Worker !== 'undefined' && typeof VideoEncoder === 'function' && typeof OffscreenCanvas !== 'undefined';
}

export class VideoStreamEncoder {
  private readonly jobs: WorkerJobs<VideoEncodeRequest, VideoEncodeResponse>;
  private seq = 0;
  private lastTimestampUs = -1;
  private readonly now: () => number;
  private readonly grab: (element: FrameSourceElement) => Promise<VideoFrame | ImageBitmap>;

  constructor(options: VideoStreamEncoderOptions = {}) {
    // A failed worker is replaced by the next encode; its successor's first chunk is a keyframe.
    this.jobs = new WorkerJobs({
      createWorker: options.createWorker ?? createVideoEncoderWorker,
      timeoutMs: options.jobTimeoutMs ?? ENCODE_TIMEOUT_MS,
      name: 'the video encoder worker',
    });
    this.now = options.now ?? (() => performance.now());
    this.grab = options.grab ?? grabPicture;
  }

  /**
   * Encodes the element's current picture as the stream's next chunk; undefined when the encoder dropped the
   * frame (nothing to send this time). The JPEG quality is not used: the bitrate is the video's.
   */
  async encode(
    element: FrameSourceElement,
    frameSize: FrameSize,
    _quality: number,
    input: ModelInput | undefined,
    video: VideoEncodeOptions,
  ): Promise<EncodedFrame | undefined> {
    const size = evenSize(encodeSize(element, frameSize, input));
    const started = this.now();
    const picture = await this.grab(element);
    const timestampUs = pictureTimestampUs(picture);
    // The encoder's rate control reads the time between frames: the grab time, always growing.
    const encoderTimestampUs = Math.max(this.lastTimestampUs + 1, Math.round(started * 1000));
    this.lastTimestampUs = encoderTimestampUs;
    const request: VideoEncodeRequest = {
      id: this.jobs.newId(),
      source: picture,
      ...size,
      codec: video.codec,
      bitrateKbps: video.bitrateKbps,
      keyFrame: video.keyFrame,
      timestampUs: encoderTimestampUs,
    };
    const response = await this.jobs.run(request);
    if (!response.ok) throw new Error(response.error);
    if (!response.data) return undefined;
    return {
      bytes: new Uint8Array(response.data),
      ...size,
      encodeMs: this.now() - started,
      path: 'worker',
      ...(timestampUs === undefined ? {} : { timestampUs }),
      video: { codec: video.codec, key: response.key, seq: ++this.seq },
    };
  }

  dispose(): void {
    this.jobs.stop('encoder disposed');
  }
}
