/**
 * The send loop: takes the source's newest picture, encodes it (one encode at a time) and hands it to the
 * frame sender whenever flow control, the socket, the source and the rejection backoff all allow. Every
 * event that may let the next frame go (an answer, `hello`, a new picture, a settings change, a given-up
 * answer, a timer) calls pump(); a pump with nothing to do registers for the event it waits for and returns.
 */
import type { EncodedFrame, FrameSourceElement } from '../capture/frame-encoder.ts';
import type { FrameSize, ModelInput } from '../capture/frame-size.ts';
import type { FrameOptions } from '../transport/frame-sender.ts';
import type { Clock, TimerHandle } from './clock.ts';
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
}

export interface LoopEncoder {
  encode(element: FrameSourceElement, frameSize: FrameSize, quality: number, input?: ModelInput): Promise<EncodedFrame>;
}

/** Flow control: the frame dispatcher (gateway or this device), or the FrameSender alone. */
export interface LoopSender {
  canSend(): boolean;
  /** Undefined when nothing was sent. */
  sendFrame(image: Uint8Array, options: FrameOptions): { id: number } | undefined;
}

export interface LoopLink {
  /** Somewhere to send frames: the gateway's socket open and greeted, or the model ready on this device. */
  readonly isOpen: boolean;
}

export type LoopSettings = Pick<StreamSettings, 'paused' | 'frameSize' | 'jpegQuality' | 'model' | 'threshold'>;

export interface StreamLoopOptions {
  source: LoopSource;
  encoder: LoopEncoder;
  sender: LoopSender;
  link: LoopLink;
  clock: Pick<Clock, 'setTimeout' | 'clearTimeout'>;
  settings: () => LoopSettings;
  /** The model input the "auto" frame size is fitted to. */
  modelInput: () => ModelInput | undefined;
  /** How long the rejection backoff still holds the next frame, ms (0: it may go). */
  holdMs: () => number;
  /** A frame went out. */
  onSent: () => void;
  onEncodeError: (message: string) => void;
}

/** What the last encode produced, for the "Last frame" panel. */
export interface EncodeSummary {
  width: number;
  height: number;
  bytes: number;
  encodeMs: number;
}

export class StreamLoop {
  private running = false;
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
    this.running = true;
  }

  stop(): void {
    this.running = false;
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

  /** Sends as many frames as flow control allows, one encode at a time. */
  readonly pump = (): void => {
    const { source, sender, link } = this.options;
    const settings = this.options.settings();
    if (!this.running || this.encoding || settings.paused) return;
    if (!link.isOpen || !sender.canSend()) return;
    const wait = this.options.holdMs();
    if (wait > 0) {
      // The gateway keeps rejecting frames: back off instead of hammering it.
      this.retryIn(wait);
      return;
    }
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
    const skippedBefore = still ? 0 : this.skips.take(source.frameToken);
    const { frameSize, jpegQuality } = settings;
    const input = this.options.modelInput();
    const inputKey = input ? `${input.width}x${input.height}${input.resize}` : '';
    const cacheKey = `${still ? element.currentSrc : ''}|${frameSize}|${inputKey}|${jpegQuality}`;
    if (still && this.stillCache?.key === cacheKey) {
      this.send(this.stillCache.frame, 0);
      return;
    }
    this.encoding = true;
    this.options.encoder.encode(element, frameSize, jpegQuality, input).then(
      (frame) => {
        this.encoding = false;
        if (still) this.stillCache = { key: cacheKey, frame };
        this.send(frame, skippedBefore);
      },
      (error: unknown) => {
        this.encoding = false;
        if (!this.running) return;
        if (!still) this.skips.giveBack(skippedBefore);
        this.options.onEncodeError(`Could not encode a frame: ${error instanceof Error ? error.message : String(error)}`);
        this.retryIn(ENCODE_RETRY_MS);
      },
    );
  };

  private send(frame: EncodedFrame, skippedBefore: number): void {
    const { source, sender, link } = this.options;
    this.encoded = { width: frame.width, height: frame.height, bytes: frame.bytes.byteLength, encodeMs: frame.encodeMs };
    const settings = this.options.settings();
    // Paused or disconnected meanwhile: that break resets the skip count, nothing to carry over.
    if (!this.running || settings.paused || !link.isOpen) return;
    const sent = sender.sendFrame(frame.bytes, { model: settings.model, threshold: settings.threshold, skippedBefore });
    if (sent) this.options.onSent();
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
