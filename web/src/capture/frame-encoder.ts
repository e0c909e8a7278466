/**
 * Turns the current picture of a <video> or <img> into JPEG bytes at the chosen size and quality.
 * Preferred path: hand a VideoFrame (or ImageBitmap) to a Worker by transfer; it scales and encodes on an
 * OffscreenCanvas. Fallback when the browser lacks that: a canvas on the main thread.
 */
import type { VideoCodec } from '@sightline/shared/protocol';
import type { EncodeRequest, EncodeResponse } from './encoder-protocol.ts';
import { targetSize, type FrameSize, type ModelInput, type Size } from './frame-size.ts';

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

interface PendingJob {
  resolve: (response: EncodeResponse) => void;
  reject: (error: Error) => void;
}

/** Consecutive worker failures after which the main-thread path takes over for good. */
const WORKER_FAILURE_LIMIT = 3;

/**
 * A worker job that has not answered after this long is given up and the worker replaced: a wedged worker
 * (GPU process hiccup, a VideoFrame that never decodes) would otherwise hold the one-encode-at-a-time
 * stream forever. A normal encode takes milliseconds, a few hundred at most for the largest frames.
 */
export const ENCODE_TIMEOUT_MS = 4000;

/** The part of Worker the encoder uses (so tests can hand in a fake). */
export interface EncoderWorker {
  onmessage: ((event: MessageEvent<EncodeResponse>) => void) | null;
  onerror: ((event: ErrorEvent) => void) | null;
  postMessage(message: EncodeRequest, transfer: Transferable[]): void;
  terminate(): void;
}

export interface FrameEncoderOptions {
  createWorker?: () => EncoderWorker;
  jobTimeoutMs?: number;
}

function createEncoderWorker(): EncoderWorker {
  return new Worker(new URL('./frame-encoder.worker.ts', import.meta.url), { type: 'module', name: 'frame-encoder' });
}

export class FrameEncoder {
  private worker: EncoderWorker | undefined;
  private workerFailures = 0;
  private useWorker: boolean;
  private nextJob = 1;
  private readonly jobs = new Map<number, PendingJob>();
  private canvas: HTMLCanvasElement | undefined;
  private readonly createWorker: () => EncoderWorker;
  private readonly jobTimeoutMs: number;
  /** Why the worker path was abandoned, if it was. */
  fallbackReason: string | undefined;

  constructor(options: FrameEncoderOptions = {}) {
    this.createWorker = options.createWorker ?? createEncoderWorker;
    this.jobTimeoutMs = options.jobTimeoutMs ?? ENCODE_TIMEOUT_MS;
    this.useWorker = options.createWorker !== undefined || workerEncodingSupported();
    this.fallbackReason = this.useWorker ? undefined : 'OffscreenCanvas encoding is not supported by this browser';
  }

  get path(): EncoderPath {
    return this.useWorker ? 'worker' : 'main-thread';
  }

  /** `input` is the model's input, which the "auto" frame size is fitted to. */
  async encode(element: FrameSourceElement, frameSize: FrameSize, quality: number, input?: ModelInput): Promise<EncodedFrame> {
    const source = intrinsicSize(element);
    if (source.width <= 0 || source.height <= 0) throw new Error('the source has no picture yet');
    const size = targetSize(source, frameSize, input);
    const started = performance.now();
    if (this.useWorker) {
      try {
        const { bytes, timestampUs } = await this.encodeInWorker(element, size, quality);
        this.workerFailures = 0;
        return { bytes, ...size, encodeMs: performance.now() - started, path: 'worker', timestampUs };
      } catch (error) {
        this.workerFailures++;
        if (this.workerFailures >= WORKER_FAILURE_LIMIT) this.abandonWorker(error instanceof Error ? error.message : String(error));
        else throw error;
      }
    }
    const bytes = await this.encodeOnMainThread(element, size, quality);
    return { bytes, ...size, encodeMs: performance.now() - started, path: 'main-thread' };
  }

  dispose(): void {
    this.worker?.terminate();
    this.worker = undefined;
    for (const job of this.jobs.values()) job.reject(new Error('encoder disposed'));
    this.jobs.clear();
  }

  private async encodeInWorker(
    element: FrameSourceElement,
    size: Size,
    quality: number,
  ): Promise<{ bytes: Uint8Array; timestampUs?: number }> {
    const worker = this.ensureWorker();
    // Grabbed synchronously in the caller's task (grabPicture awaits nothing before `new VideoFrame`): the picture on show when encode() was called.
    const source = await grabPicture(element);
    const timestampUs = typeof VideoFrame === 'function' && source instanceof VideoFrame ? source.timestamp : undefined;
    const id = this.nextJob++;
    const request: EncodeRequest = { id, source, width: size.width, height: size.height, quality };
    const response = await new Promise<EncodeResponse>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (!this.jobs.delete(id)) return;
        reject(new Error(`the encoder worker did not answer within ${this.jobTimeoutMs / 1000} s; restarting it`));
        this.restartWorker(worker);
      }, this.jobTimeoutMs);
      this.jobs.set(id, {
        resolve: (answer) => {
          clearTimeout(timer);
          resolve(answer);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      try {
        worker.postMessage(request, [source]);
      } catch (error) {
        this.jobs.delete(id);
        clearTimeout(timer);
        source.close();
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
    if (!response.ok) throw new Error(response.error);
    return { bytes: new Uint8Array(response.bytes), timestampUs };
  }

  private ensureWorker(): EncoderWorker {
    if (this.worker) return this.worker;
    const worker = this.createWorker();
    worker.onmessage = (event: MessageEvent<EncodeResponse>) => {
      const job = this.jobs.get(event.data.id);
      if (!job) return;
      this.jobs.delete(event.data.id);
      job.resolve(event.data);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      this.abandonWorker(event.message || 'the encoder worker failed to start');
    };
    this.worker = worker;
    return worker;
  }

  /** Replaces a wedged worker: the next encode starts a fresh one. Jobs it still held can never finish. */
  private restartWorker(worker: EncoderWorker): void {
    if (this.worker !== worker) return;
    worker.terminate();
    this.worker = undefined;
    for (const job of this.jobs.values()) job.reject(new Error('the encoder worker was restarted'));
    this.jobs.clear();
  }

  private abandonWorker(reason: string): void {
    this.useWorker = false;
    this.fallbackReason = reason;
    this.worker?.terminate();
    this.worker = undefined;
    for (const job of this.jobs.values()) job.reject(new Error(reason));
    this.jobs.clear();
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
