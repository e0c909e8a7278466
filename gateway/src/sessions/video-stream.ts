/**
 * One client's video stream through the frame core: encoded chunks in (WebSocket `chunk` messages, or a WebRTC
 * track's frames), each answered exactly once. Every chunk is decoded, in order, by the stream's own decoder
 * (video/: one ffmpeg process, frames out at the model input's content size, no full-size RGB); each decoded
 * picture is pushed onto the stream's lane in the one queue, whose newest-wins place means only the newest
 * picture waits when they come faster than the model: an older one is answered `dropped` / `superseded`.
 *
 * A keyframe (re)opens the decoder for its codec, size and model; a delta with no usable reference, a corrupt
 * chunk, a decoder that died - each is answered with its error, and the client is asked for a keyframe
 * (throttled). Decoders are counted gateway-wide (`SIGHTLINE_MAX_VIDEO_STREAMS`): past the limit a keyframe is
 * answered `dropped` / `overloaded` with `retryAfterMs`. A stream quiet for `idleMs` frees its decoder.
 */
import type { VideoCodec } from '@sightline/shared/protocol';
import { ProtocolError } from '@sightline/shared/validation';
import type { PixelFrame } from '../decode/frame-decoder.ts';
import type { FrameService } from '../frames/frame-service.ts';
import type { FrameStream } from '../frames/frame-stream.ts';
import { mapDetected, type FrameAnswer } from '../frames/pending-frame.ts';
import type { ModelSpec } from '../models/manifest.ts';
import { pictureSize } from '../video/picture-size.ts';
import { openVideoStream, type DecodedVideoFrame, type VideoDecoding, type VideoStreamDecoder } from '../video/index.ts';
import type { VideoDecodeError } from '../video/video-errors.ts';

/** One encoded frame of the stream, as a way in hands it over. */
export interface VideoChunkRequest {
  id: number;
  /** Its capture time (the client's clock): tracking's time, echoed in the reply. */
  ts: number;
  codec: VideoCodec;
  key: boolean;
  data: Uint8Array;
  /** The picture's size, when the sender says it (WebSocket chunks do with keyframes); read from a keyframe otherwise. */
  width?: number | undefined;
  height?: number | undefined;
  model?: string | undefined;
  threshold?: number | undefined;
}

/** How many decoders the gateway runs at once, at most. */
export class DecoderAllowance {
  private used = 0;
  constructor(readonly limit: number) {}
  get inUse(): number {
    return this.used;
  }
  take(): boolean {
    if (this.used >= this.limit) return false;
    this.used++;
    return true;
  }
  give(): void {
    this.used = Math.max(0, this.used - 1);
  }
}

export interface VideoStreamOptions {
  frames: FrameService;
  decoding: VideoDecoding;
  decoders: DecoderAllowance;
  maxPixels: number;
  /** Resolves a model name (the default when none) and checks its engine; throws ProtocolError. */
  model: (name: string | undefined) => ModelSpec;
  tracking?: boolean;
  /** The camera the stream belongs to (its detected pictures pass the detections tap). */
  camera?: string | undefined;
  /** Asks the client for a keyframe (a `keyframe` message, or a PLI on a WebRTC track). */
  requestKeyframe: (reason: string) => void;
  /** A stream with no chunk for this long frees its decoder; the next keyframe opens one again. */
  idleMs?: number;
}

interface Accepted {
  request: VideoChunkRequest;
  answer: FrameAnswer;
  receivedAt: number;
}

interface OpenDecoder {
  decoder: VideoStreamDecoder;
  codec: VideoCodec;
  width: number;
  height: number;
  spec: ModelSpec;
  threshold: number;
}

/** Asks for a keyframe at most this often: a burst of refused deltas asks once. */
const KEYFRAME_REQUEST_MS = 500;
const DEFAULT_IDLE_MS = 30_000;
/** When a client refused for lack of a decoder should try its next keyframe. */
const NO_SLOT_RETRY_MS = 1000;

export class VideoStream {
  private readonly stream: FrameStream;
  private open: OpenDecoder | undefined;
  private readonly accepted = new Map<number, Accepted>();
  private lastKeyframeRequest = -Infinity;
  private idleTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: VideoStreamOptions) {
    // One picture waits at most: a newer decoded picture supersedes it.
    this.stream = options.frames.openStream({
      maxInFlight: 1,
      queueLength: 1,
      tracking: options.tracking ?? false,
      camera: options.camera,
    });
  }

  /** Takes a chunk; `answer` is called exactly once for it. */
  push(request: VideoChunkRequest, answer: FrameAnswer, receivedAt: number): void {
    if (this.closed) return answer.dropped('shutting_down');
    this.armIdle();
    if (request.key) {
      const refusal = this.openFor(request);
      if (refusal) return this.refuse(request, answer, refusal);
    } else if (
      this.open &&
      (request.codec !== this.open.codec || (request.model !== undefined && request.model !== this.open.spec.manifest.name))
    ) {
      return this.refuse(
        request,
        answer,
        new ProtocolError('needs_keyframe', 'a new codec or model starts with a keyframe', request.id),
        true,
      );
    }
    if (!this.open) {
      return this.refuse(request, answer, new ProtocolError('needs_keyframe', 'the stream starts with a keyframe', request.id), true);
    }
    if (this.accepted.has(request.id)) {
      return answer.failed(
        new ProtocolError('bad_message', `chunk ${request.id} is already being decoded; number chunks uniquely`, request.id),
      );
    }
    const error = this.open.decoder.decode({ id: request.id, key: request.key, timestamp: request.ts, data: request.data });
    if (error) return this.decodeFailed(request, answer, error);
    this.accepted.set(request.id, { request, answer, receivedAt });
  }

  /** The client is gone: its decoder is freed, nothing more is answered. */
  close(): void {
    this.closed = true;
    clearTimeout(this.idleTimer);
    this.stream.detach();
    this.accepted.clear();
    this.closeDecoder();
  }

  /** The gateway drains: what waits is answered `shutting_down`, what runs finishes; then the decoder is freed. */
  async drain(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleTimer);
    this.stream.close('shutting_down');
    for (const { answer } of this.accepted.values()) answer.dropped('shutting_down');
    this.accepted.clear();
    await this.stream.whenIdle();
    this.closeDecoder();
  }

  /** Opens (or keeps) the decoder this keyframe starts; a ProtocolError when it cannot. */
  private openFor(request: VideoChunkRequest): ProtocolError | undefined {
    let spec: ModelSpec;
    try {
      spec = this.options.model(request.model);
    } catch (error) {
      return error instanceof ProtocolError ? error : new ProtocolError('internal', String(error));
    }
    const size =
      request.width !== undefined && request.height !== undefined
        ? { width: request.width, height: request.height }
        : pictureSize(request.codec, request.data);
    if (!size)
      return new ProtocolError('bad_video', `the keyframe does not say its picture size; send width and height with it`, request.id);
    const threshold = request.threshold ?? spec.scoreThreshold;
    const open = this.open;
    if (open && open.codec === request.codec && open.width === size.width && open.height === size.height && open.spec === spec) {
      open.threshold = threshold;
      return undefined;
    }
    this.closeDecoder();
    if (!this.options.decoders.take()) {
      return new ProtocolError(
        'overloaded',
        `the gateway decodes at most ${this.options.decoders.limit} video streams at once`,
        request.id,
        NO_SLOT_RETRY_MS,
      );
    }
    const opened = openVideoStream({
      decoding: this.options.decoding,
      codec: request.codec,
      width: size.width,
      height: size.height,
      target: spec.manifest.input,
      maxPixels: this.options.maxPixels,
      onFrame: () => this.decoded(),
      onDropped: (frame, reason) => this.settle(frame.chunkId)?.answer.dropped(reason === 'closed' ? 'shutting_down' : 'superseded'),
      onError: (error) => this.failedInDecoder(error),
    });
    if (!opened.ok) {
      this.options.decoders.give();
      return new ProtocolError(opened.error.protocolCode, opened.error.message, request.id);
    }
    this.open = { decoder: opened.decoder, codec: request.codec, width: size.width, height: size.height, spec, threshold };
    return undefined;
  }

  /** A picture is ready: the newest goes onto the lane, where a newer one will supersede it if it must wait. */
  private decoded(): void {
    const open = this.open;
    const frame = open?.decoder.latest();
    if (!open || !frame) return;
    const accepted = this.settle(frame.chunkId);
    if (!accepted) return;
    const decodedAt = performance.now();
    const pixels: PixelFrame = {
      kind: 'pixels',
      rgb: frame.rgb,
      width: frame.width,
      height: frame.height,
      placement: frame.placement,
      decoder: frame.decoder,
    };
    this.stream.push(
      { spec: open.spec, threshold: open.threshold, frame: pixels, decodeBytes: frame.rgb.data.byteLength },
      withDecodeTime(accepted.answer, frame),
      { receivedAt: decodedAt, capturedAt: accepted.request.ts },
    );
  }

  private failedInDecoder(error: VideoDecodeError): void {
    if (error.chunkId === undefined) {
      if (error.keyframeNeeded) this.askForKeyframe(error.message);
      return;
    }
    const accepted = this.settle(error.chunkId);
    if (accepted) this.decodeFailed(accepted.request, accepted.answer, error);
  }

  private decodeFailed(request: VideoChunkRequest, answer: FrameAnswer, error: VideoDecodeError): void {
    if (error.keyframeNeeded) this.askForKeyframe(error.message);
    if (error.protocolCode === 'overloaded') return answer.dropped('overloaded', NO_SLOT_RETRY_MS);
    answer.failed(new ProtocolError(error.protocolCode, error.message, request.id));
  }

  private refuse(request: VideoChunkRequest, answer: FrameAnswer, error: ProtocolError, keyframe = error.code === 'needs_keyframe'): void {
    if (keyframe) this.askForKeyframe(error.message);
    if (error.code === 'overloaded') return answer.dropped('overloaded', error.retryAfterMs);
    answer.failed(error);
  }

  private settle(chunkId: number): Accepted | undefined {
    const accepted = this.accepted.get(chunkId);
    this.accepted.delete(chunkId);
    return accepted;
  }

  private askForKeyframe(reason: string): void {
    const now = performance.now();
    if (now - this.lastKeyframeRequest < KEYFRAME_REQUEST_MS) return;
    this.lastKeyframeRequest = now;
    this.options.requestKeyframe(reason);
  }

  private closeDecoder(): void {
    const open = this.open;
    if (!open) return;
    this.open = undefined;
    void open.decoder.close();
    this.options.decoders.give();
  }

  private armIdle(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.closeDecoder(), this.options.idleMs ?? DEFAULT_IDLE_MS);
    this.idleTimer.unref();
  }
}

/** The decoder's time (write to ffmpeg to frame read back) counts in the reply's decodeMs. */
function withDecodeTime(answer: FrameAnswer, frame: DecodedVideoFrame): FrameAnswer {
  return mapDetected(answer, (detected) => ({
    ...detected,
    result: { ...detected.result, stages: { ...detected.result.stages, decodeMs: detected.result.stages.decodeMs + frame.latencyMs } },
  }));
}
