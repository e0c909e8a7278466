/**
 * Turns the current picture of a <video> or <img> into JPEG bytes at the chosen size and quality.
 * Preferred path: hand a VideoFrame (or ImageBitmap) to a Worker by transfer; it scales and encodes on an
 * OffscreenCanvas. Fallback when the browser lacks that: a canvas on the main thread.
 */
import type { VideoCodec } from '@sightline/shared/protocol';
import type { EncodeRequest, EncodeResponse } from './encoder-protocol.ts';
import { targetSize, type FrameSize, type ModelInput, type Size } from './frame-size.ts';
import { WorkerJobs, type JobWorker } from './worker-jobs.ts';

export type EncoderPath = 'worker' | 'main-thread';

export interface EncodedFrame {
  bytes: Uint8Array;
  width: number;
  height: number;
  /** Capture + scale + encode wall time. */
  encodeMs: number;
  path: EncoderPath;
  /**
   * The grabbed video frame's media timestamp (VideoFrame.timestamp, µs), which names the frame exactly:
   * the stream loop looks its capture time up by it. Undefined when the picture was not grabbed as a VideoFrame.
   */
  timestampUs?: number;
  /** A video chunk (video/video-stream-encoder.ts) rather than a JPEG: its codec, whether it is a keyframe, its place in the chain. */
  video?: EncodedChunkInfo;
}

/** What makes encoded bytes a video chunk: the codec, a keyframe or a delta, and the encoder's output number. */
export interface EncodedChunkInfo {
  codec: VideoCodec;
  key: boolean;
  /** Consecutive outputs of one encoder have consecutive numbers: a delta is only usable right after its predecessor. */
  seq: number;
}

export type FrameSourceElement = HTMLVideoElement | HTMLImageElement;

export function intrinsicSize(element: FrameSourceElement): Size {
  if (element instanceof HTMLVideoElement) return { width: element.videoWidth, height: element.videoHeight };
  return { width: element.naturalWidth, height: element.naturalHeight };
}

function workerEncodingSupported(): boolean {
  return (
    typeof Worker !== 'undefined' &&
    typeof OffscreenCanvas !== 'undefined' &&
    typeof OffscreenCanvas.prototype.convertToBlob === 'function' &&
    typeof createImageBitmap === 'function'
  );
}

/** Consecutive worker failures after which the main-thread path takes over for good. */
const WORKER_FAILURE_LIMIT = 3;

/**
 * A worker job that has not answered after this long is given up and the worker replaced (worker-jobs.ts).
 * A normal encode takes milliseconds, a few hundred at most for the largest frames.
 */
export const ENCODE_TIMEOUT_MS = 4000;

/** The part of Worker the encoder uses (so tests can hand in a fake). */
export type EncoderWorker = JobWorker<EncodeRequest, EncodeResponse>;

export interface FrameEncoderOptions {
  createWorker?: () => EncoderWorker;
  jobTimeoutMs?: number;
}

function createEncoderWorker(): EncoderWorker {
  return new Worker(new URL('./frame-encoder.worker.ts', import.meta.url), { type: 'module', name: 'frame-encoder' });
}

/** The size `element`'s current picture is encoded at (`input`: the model's, which "auto" fits); throws without a picture. */
export function encodeSize(element: FrameSourceElement, frameSize: FrameSize, input: ModelInput | undefined): Size {
  const source = intrinsicSize(element);
  if (source.width <= 0 || source.height <= 0) throw new Error('the source has no picture yet');
  return targetSize(source, frameSize, input);
}

/** The grabbed picture's media timestamp (µs) when it is a VideoFrame: it names the frame exactly. */
export function pictureTimestampUs(picture: VideoFrame | ImageBitmap): number | undefined {
  return typeof VideoFrame === 'function' && picture instanceof VideoFrame ? picture.timestamp : undefined;
}

export class FrameEncoder {
  private workerFailures = 0;
  private useWorker: boolean;
  private canvas: HTMLCanvasElement | undefined;
  private readonly jobs: WorkerJobs<EncodeRequest, EncodeResponse>;
  /** Why the worker path was abandoned, if it was. */
  fallbackReason: string | undefined;

  constructor(options: FrameEncoderOptions = {}) {
    this.jobs = new WorkerJobs({
      createWorker: options.createWorker ?? createEncoderWorker,
      timeoutMs: options.jobTimeoutMs ?? ENCODE_TIMEOUT_MS,
      name: 'the encoder worker',
      onFailure: (reason) => this.abandonWorker(reason),
    });
    this.useWorker = options.createWorker !== undefined || workerEncodingSupported();
    this.fallbackReason = this.useWorker ? undefined : 'OffscreenCanvas encoding is not supported by this browser';
  }

  get path(): EncoderPath {
    return this.useWorker ? 'worker' : 'main-thread';
  }

  /** `input` is the model's input, which the "auto" frame size is fitted to. */
  async encode(element: FrameSourceElement, frameSize: FrameSize, quality: number, input?: ModelInput): Promise<EncodedFrame> {
    const size = encodeSize(element, frameSize, input);
    const started = performance.now();
    if (this.useWorker) {
      try {
        const { bytes, timestampUs } = await this.encodeInWorker(element, size, quality);
        this.workerFailures = 0;
        return { bytes, ...size, encodeMs: performance.now() - started, path: 'worker', timestampUs };
      } catch (error) {
        this.workerFailures++;
        if (this.workerFailures < WORKER_FAILURE_LIMIT) throw error;
        const reason = error instanceof Error ? error.message : String(error);
        this.jobs.stop(reason);
        this.abandonWorker(reason);
      }
    }
    const bytes = await this.encodeOnMainThread(element, size, quality);
    return { bytes, ...size, encodeMs: performance.now() - started, path: 'main-thread' };
  }

  dispose(): void {
    this.jobs.stop('encoder disposed');
  }

  private async encodeInWorker(
    element: FrameSourceElement,
    size: Size,
    quality: number,
  ): Promise<{ bytes: Uint8Array; timestampUs?: number }> {
    // Grabbed synchronously in the caller's task (grabPicture awaits nothing before `new VideoFrame`): the picture on show when encode() was called.
    const source = await grabPicture(element);
    const timestampUs = pictureTimestampUs(source);
    const response = await this.jobs.run({ id: this.jobs.newId(), source, width: size.width, height: size.height, quality });
    if (!response.ok) throw new Error(response.error);
    return { bytes: new Uint8Array(response.bytes), timestampUs };
  }

  /** The worker failed: the main thread encodes from now on. */
  private abandonWorker(reason: string): void {
    this.useWorker = false;
    this.fallbackReason = reason;
  }

  private async encodeOnMainThread(element: FrameSourceElement, size: Size, quality: number): Promise<Uint8Array> {
    const canvas = (this.canvas ??= document.createElement('canvas'));
    if (canvas.width !== size.width) canvas.width = size.width;
    if (canvas.height !== size.height) canvas.height = size.height;
    const context = canvas.getContext('2d', { alpha: false });
    if (!context) throw new Error('2D canvas unavailable');
    context.drawImage(element, 0, 0, size.width, size.height);
    const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, 'image/jpeg', quality));
    if (!blob) throw new Error('JPEG encoding failed');
    return new Uint8Array(await blob.arrayBuffer());
  }
}

/**
 * A transferable snapshot of the element's current picture: a zero-copy VideoFrame when possible, taken
 * synchronously in the caller's task (nothing is awaited before `new VideoFrame`).
 */
export async function grabPicture(element: FrameSourceElement): Promise<VideoFrame | ImageBitmap> {
  if (element instanceof HTMLVideoElement && typeof VideoFrame === 'function') {
    try {
      return new VideoFrame(element);
    } catch {
      // Some video sources cannot be wrapped; an ImageBitmap copy always works.
    }
  }
  return createImageBitmap(element);
}
