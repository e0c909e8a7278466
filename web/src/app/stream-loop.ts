/**
 * The send loop: takes the source's newest picture, encodes it (one encode at a time) as the route that takes
 * it asks (a JPEG, or the next chunk of a video stream) and hands it to the frame dispatcher whenever flow
 * control, a route, the source and the rejection backoff all allow. It
 * subscribes to what may let the next frame go (`wakeOn`: a route greeted, loaded or settling a frame, the
 * source, the settings, the backoff running out) and pumps then; a pump with nothing to do returns, or
 * registers for the next video frame or picture it waits for.
 */
import type { EncodedFrame, FrameSourceElement } from '../capture/frame-encoder.ts';
import type { FrameSize, ModelInput } from '../capture/frame-size.ts';
import { Signal, type Subscribable } from '../events/signal.ts';
import { JPEG_FORMAT, type FrameFormat, type FrameRequest } from '../frame-routes/route-port.ts';
import type { VideoEncodeOptions } from '../video/video-stream-encoder.ts';
import type { Clock, TimerHandle } from '../time/clock.ts';
import { DEFAULT_VIDEO_BITRATE_KBPS } from '../video/video-bitrate.ts';
import type { StreamSettings } from './settings.ts';
import { SkipCounter } from './skip-counter.ts';

/** After an encode failed, the next attempt waits this long (a stuck encoder should not spin). */
export const ENCODE_RETRY_MS = 500;

/** The picture being streamed (CaptureSource). */
export interface LoopSource {
  /** The element showing a picture now; undefined while there is none. */
  readyElement(): FrameSourceElement | undefined;
  /** A still image: every capture counts as new. */
  readonly isStill: boolean;
  /** Changes whenever the video presents a new frame. */
  readonly frameToken: number;
  onReady(callback: () => void): void;
  onNextFrame(callback: () => void): void;
  /** When the picture on show now was taken, page clock, ms (capture/frame-times.ts). */
  pictureTime(): number;
  /** When the recently presented video frame with this timestamp (VideoFrame.timestamp, µs) was taken, if known. */
  captureTimeOf(timestampUs: number): number | undefined;
}

export interface LoopEncoder {
  encode(element: FrameSourceElement, frameSize: FrameSize, quality: number, input?: ModelInput): Promise<EncodedFrame>;
}

/** The camera as a video stream (video/video-stream-encoder.ts): undefined when the encoder dropped the frame. */
export interface LoopVideoEncoder {
  encode(
    element: FrameSourceElement,
    frameSize: FrameSize,
    quality: number,
    input: ModelInput | undefined,
    video: VideoEncodeOptions,
  ): Promise<EncodedFrame | undefined>;
}

/** Flow control: the frame dispatcher (gateway or this device), or one route alone. */
export interface LoopSender {
  canSend(): boolean;
  /** How the next frame must be encoded (default: a JPEG). */
  nextFormat?(): FrameFormat;
  /** Undefined when nothing was sent. */
  sendFrame(image: Uint8Array, request: FrameRequest): { id: number } | undefined;
}

export interface LoopLink {
  /** Somewhere to send frames: the gateway's socket open and greeted, or the model ready on this device. */
  readonly isOpen: boolean;
}

export type LoopSettings = Pick<StreamSettings, 'paused' | 'frameSize' | 'jpegQuality' | 'model' | 'threshold'> &
  Partial<Pick<StreamSettings, 'videoBitrate'>>;

export interface StreamLoopOptions {
  source: LoopSource;
  encoder: LoopEncoder;
  /** Encodes the frames a route asks to get as video; without it every frame is a JPEG. */
  videoEncoder?: LoopVideoEncoder;
  sender: LoopSender;
  link: LoopLink;
  clock: Pick<Clock, 'setTimeout' | 'clearTimeout'>;
  settings: () => LoopSettings;
  /** The model input the "auto" frame size is fitted to. */
  modelInput: () => ModelInput | undefined;
  /** How long the rejection backoff still holds the next frame, ms (0: it may go); it says when it lets go through `wakeOn`. */
  holdMs: () => number;
  /** Whatever may let the next frame go: subscribed between start() and stop(). */
  wakeOn: readonly Subscribable<unknown>[];
}

/** What the last encode produced, for the "Last frame" panel. */
export interface EncodeSummary {
  width: number;
  height: number;
  bytes: number;
  encodeMs: number;
}

export class StreamLoop {
  /** A frame went out. */
  readonly sent = new Signal<void>();
  /** An encode failed (the next attempt waits ENCODE_RETRY_MS), in words. */
  readonly encodeFailed = new Signal<string>();
  private running = false;
  private wakeQueued = false;
  private unsubscribe: (() => void)[] = [];
  private encoding = false;
  private lastFrameToken = -1;
  /** A still image is encoded once per picture and settings, then re-sent from here. */
  private stillCache: { key: string; frame: EncodedFrame } | undefined;
  private retryTimer: TimerHandle | undefined;
  private readonly skips = new SkipCounter();
  private encoded: EncodeSummary | undefined;

  constructor(private readonly options: StreamLoopOptions) {}

  get lastEncode(): EncodeSummary | undefined {
    return this.encoded;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.unsubscribe = this.options.wakeOn.map((signal) => signal.subscribe(this.wake));
  }

  stop(): void {
    this.running = false;
    for (const unsubscribe of this.unsubscribe) unsubscribe();
    this.unsubscribe = [];
    this.options.clock.clearTimeout(this.retryTimer);
  }

  /** The still image must be encoded again (new source, or settings that change the picture). */
  forgetStill(): void {
    this.stillCache = undefined;
  }

  /** The stream stops for a while (pause, outage, new source): frames until the next one sent are not skips. */
  breakRun(): void {
    this.skips.breakRun();
  }

  /**
   * A unit published a change: pump once the current task's own work is done. A unit may publish in the
   * middle of a change (an engine failing, a socket greeted before its `hello` is handed on), and several
   * changes of one task (an answer settles a frame, the backoff resets) need one pump, not several.
   */
  private readonly wake = (): void => {
    if (this.wakeQueued) return;
    this.wakeQueued = true;
    queueMicrotask(() => {
      this.wakeQueued = false;
      this.pump();
    });
  };

  /** Sends as many frames as flow control allows, one encode at a time. */
  readonly pump = (): void => {
    const { source, sender, link } = this.options;
    const settings = this.options.settings();
    if (!this.running || this.encoding || settings.paused) return;
    if (!link.isOpen || !sender.canSend()) return;
    // The gateway keeps rejecting frames: back off instead of hammering it, until the backoff lets go.
    if (this.options.holdMs() > 0) return;
    const element = source.readyElement();
    if (!element) {
      // The video is loading, seeking (a file looping) or stalled: carry on once it has a picture again.
      source.onReady(this.pump);
      return;
    }
    const still = source.isStill;
    if (!still && source.frameToken === this.lastFrameToken) {
      // Never send the same video frame twice: wait for the next one.
      source.onNextFrame(this.pump);
      return;
    }
    this.lastFrameToken = source.frameToken;
    // The capture time of the frame on show as the encoder grabs it; the grabbed frame's own timestamp,
    // when the encoder reports one, names the frame exactly (a newer one may have arrived unannounced).
    const shownAt = source.pictureTime();
    const skippedBefore = still ? 0 : this.skips.take(source.frameToken);
    const { frameSize, jpegQuality } = settings;
    const input = this.options.modelInput();
    const format = this.format();
    if (format.kind === 'video') {
      this.encodeVideo(element, format, skippedBefore, shownAt);
      return;
    }
    const inputKey = input ? `${input.width}x${input.height}${input.resize}` : '';
    const cacheKey = `${still ? element.currentSrc : ''}|${frameSize}|${inputKey}|${jpegQuality}`;
    if (still && this.stillCache?.key === cacheKey) {
      this.send(this.stillCache.frame, 0, shownAt);
      return;
    }
    this.encoding = true;
    this.options.encoder.encode(element, frameSize, jpegQuality, input).then(
      (frame) => {
        this.encoding = false;
        if (still) this.stillCache = { key: cacheKey, frame };
        const capturedAt = frame.timestampUs === undefined ? undefined : source.captureTimeOf(frame.timestampUs);
        this.send(frame, skippedBefore, capturedAt ?? shownAt);
      },
      (error: unknown) => this.encodeFailedWith(error, still, skippedBefore),
    );
  };

  /** How the frame about to be taken must be encoded: video only when a video encoder is there to do it. */
  private format(): FrameFormat {
    const format = this.options.sender.nextFormat?.() ?? JPEG_FORMAT;
    return format.kind === 'video' && !this.options.videoEncoder ? JPEG_FORMAT : format;
  }

  /**
   * The picture as the video stream's next chunk. Never cached (each picture of a stream is a new chunk, a
   * still image too); a frame the encoder dropped is skipped, and the loop waits for the next picture.
   */
  private encodeVideo(
    element: FrameSourceElement,
    format: Extract<FrameFormat, { kind: 'video' }>,
    skippedBefore: number,
    shownAt: number,
  ): void {
    const { source } = this.options;
    const settings = this.options.settings();
    const still = source.isStill;
    const video: VideoEncodeOptions = {
      codec: format.codec,
      keyFrame: format.keyFrame,
      bitrateKbps: settings.videoBitrate ?? DEFAULT_VIDEO_BITRATE_KBPS,
    };
    this.encoding = true;
    this.options.videoEncoder!.encode(element, settings.frameSize, settings.jpegQuality, this.options.modelInput(), video).then(
      (frame) => {
        this.encoding = false;
        if (!frame) {
          if (!still) this.skips.giveBack(skippedBefore);
          if (this.running) this.pump();
          return;
        }
        const capturedAt = frame.timestampUs === undefined ? undefined : source.captureTimeOf(frame.timestampUs);
        this.send(frame, skippedBefore, capturedAt ?? shownAt);
      },
      (error: unknown) => this.encodeFailedWith(error, still, skippedBefore),
    );
  }

  private encodeFailedWith(error: unknown, still: boolean, skippedBefore: number): void {
    this.encoding = false;
    if (!this.running) return;
    if (!still) this.skips.giveBack(skippedBefore);
    this.encodeFailed.emit(`Could not encode a frame: ${error instanceof Error ? error.message : String(error)}`);
    this.retryIn(ENCODE_RETRY_MS);
  }

  private send(frame: EncodedFrame, skippedBefore: number, capturedAt: number): void {
    const { source, sender, link } = this.options;
    this.encoded = { width: frame.width, height: frame.height, bytes: frame.bytes.byteLength, encodeMs: frame.encodeMs };
    const settings = this.options.settings();
    // Paused or disconnected meanwhile: that break resets the skip count, nothing to carry over.
    if (!this.running || settings.paused || !link.isOpen) return;
    const video = frame.video && { ...frame.video, width: frame.width, height: frame.height };
    const sent = sender.sendFrame(frame.bytes, {
      model: settings.model,
      threshold: settings.threshold,
      skippedBefore,
      capturedAt,
      ...(video ? { video } : {}),
    });
    if (sent) this.sent.emit();
    else if (!source.isStill) this.skips.giveBack(skippedBefore);
    // Still images re-send from cache synchronously; yield so answers and rendering get their turn.
    if (source.isStill) queueMicrotask(this.pump);
    else this.pump();
  }

  private retryIn(ms: number): void {
    const { clock } = this.options;
    clock.clearTimeout(this.retryTimer);
    this.retryTimer = clock.setTimeout(this.pump, ms);
  }
}
