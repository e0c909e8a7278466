/**
 * The camera as a video stream: each picture the stream loop takes is grabbed (a VideoFrame, zero-copy, in the
 * caller's task), transferred to a worker that scales it and encodes it with WebCodecs (video-encoder.worker.ts),
 * and comes back as one chunk: a keyframe when asked for or when the encoder was (re)configured, else a delta.
 * Every output is numbered so a sender can tell whether a delta follows the chunk it sent last
 * (video-uplink.ts). One encode at a time, like the JPEG encoder; a worker that does not answer within
 * ENCODE_TIMEOUT_MS is replaced (its successor starts with a keyframe).
 */
import type { VideoCodec } from '@sightline/shared/protocol';
import { ENCODE_TIMEOUT_MS, grabPicture, intrinsicSize, type EncodedFrame, type FrameSourceElement } from '../capture/frame-encoder.ts';
import { targetSize, type FrameSize, type ModelInput } from '../capture/frame-size.ts';
import { evenSize } from './video-encoder-config.ts';
import type { VideoEncodeRequest, VideoEncodeResponse } from './video-encoder-protocol.ts';

export interface VideoEncodeOptions {
  codec: VideoCodec;
  bitrateKbps: number;
  keyFrame: boolean;
}

/** The part of Worker the encoder uses (so tests can hand in a fake). */
export interface VideoEncoderWorker {
  onmessage: ((event: MessageEvent<VideoEncodeResponse>) => void) | null;
  onerror: ((event: ErrorEvent) => void) | null;
  postMessage(message: VideoEncodeRequest, transfer: Transferable[]): void;
  terminate(): void;
}

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

interface Job {
  resolve: (response: VideoEncodeResponse) => void;
  reject: (error: Error) => void;
}

export class VideoStreamEncoder {
  private worker: VideoEncoderWorker | undefined;
  private nextJob = 1;
  private readonly jobs = new Map<number, Job>();
  private seq = 0;
  private lastTimestampUs = -1;
  private readonly createWorker: () => VideoEncoderWorker;
  private readonly jobTimeoutMs: number;
  private readonly now: () => number;
  private readonly grab: (element: FrameSourceElement) => Promise<VideoFrame | ImageBitmap>;

  constructor(options: VideoStreamEncoderOptions = {}) {
    this.createWorker = options.createWorker ?? createVideoEncoderWorker;
    this.jobTimeoutMs = options.jobTimeoutMs ?? ENCODE_TIMEOUT_MS;
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
    const source = intrinsicSize(element);
    if (source.width <= 0 || source.height <= 0) throw new Error('the source has no picture yet');
    const size = evenSize(targetSize(source, frameSize, input));
    const started = this.now();
    const worker = this.ensureWorker();
    const picture = await this.grab(element);
    const timestampUs = typeof VideoFrame === 'function' && picture instanceof VideoFrame ? picture.timestamp : undefined;
    // The encoder's rate control reads the time between frames: the grab time, always growing.
    const encoderTimestampUs = Math.max(this.lastTimestampUs + 1, Math.round(started * 1000));
    this.lastTimestampUs = encoderTimestampUs;
    const id = this.nextJob++;
    const request: VideoEncodeRequest = {
      id,
      source: picture,
      ...size,
      codec: video.codec,
      bitrateKbps: video.bitrateKbps,
      keyFrame: video.keyFrame,
      timestampUs: encoderTimestampUs,
    };
    const response = await this.post(worker, request);
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
    this.worker?.terminate();
    this.worker = undefined;
    for (const job of this.jobs.values()) job.reject(new Error('encoder disposed'));
    this.jobs.clear();
  }

  private post(worker: VideoEncoderWorker, request: VideoEncodeRequest): Promise<VideoEncodeResponse> {
    return new Promise<VideoEncodeResponse>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (!this.jobs.delete(request.id)) return;
        reject(new Error(`the video encoder did not answer within ${this.jobTimeoutMs / 1000} s; restarting it`));
        this.restartWorker(worker);
      }, this.jobTimeoutMs);
      const settle = (): void => clearTimeout(timer);
      this.jobs.set(request.id, {
        resolve: (answer) => {
          settle();
          resolve(answer);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      try {
        worker.postMessage(request, [request.source]);
      } catch (error) {
        this.jobs.delete(request.id);
        settle();
        request.source.close();
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  private ensureWorker(): VideoEncoderWorker {
    if (this.worker) return this.worker;
    const worker = this.createWorker();
    worker.onmessage = (event: MessageEvent<VideoEncodeResponse>) => {
      const job = this.jobs.get(event.data.id);
      if (!job) return;
      this.jobs.delete(event.data.id);
      job.resolve(event.data);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      this.restartWorker(worker, event.message || 'the video encoder worker failed');
    };
    this.worker = worker;
    return worker;
  }

  /** A wedged or failed worker is replaced by the next encode; its successor's first chunk is a keyframe. */
  private restartWorker(worker: VideoEncoderWorker, reason = 'the video encoder worker was restarted'): void {
    if (this.worker !== worker) return;
    worker.terminate();
    this.worker = undefined;
    for (const job of this.jobs.values()) job.reject(new Error(reason));
    this.jobs.clear();
  }
}
