/**
 * One client speaking the frame protocol over a message channel (a WebSocket connection, a WebRTC data
 * channel), top to bottom: bytes -> rate limit -> codec -> validation -> admission -> the client's stream in
 * the frame core -> reply in the codec the request came in. Every frame is answered exactly once
 * (detections, dropped or error), or the channel is closed with a code and a reason (CLOSE_CODES): when the
 * gateway drains, when the client does not read its answers, when it keeps sending above its rate.
 */
import { decodeClientMessage, encodeMessage, ProtocolError } from '@sightline/shared/codec';
import {
  CLOSE_CODES,
  DEFAULT_CAMERA,
  PROTOCOL_VERSION,
  type CloseCode,
  type ChunkMessage,
  type Codec,
  type FrameMessage,
  type Limits,
  type ServerMessage,
} from '@sightline/shared/protocol';
import { sniffFormat } from '../decode/image-header.ts';
import type { FrameService } from '../frames/frame-service.ts';
import type { FrameStream } from '../frames/frame-stream.ts';
import type { FrameAnswer } from '../frames/pending-frame.ts';
import { detectionsReply, errorReply } from '../frames/replies.ts';
import type { Logger } from '../logger.ts';
import { observeStages, type Metrics } from '../metrics.ts';
import type { MessageChannel } from './message-channel.ts';
import { MessageRateLimiter } from './message-rate-limiter.ts';
import { VideoStream, type VideoStreamOptions } from './video-stream.ts';

/** What a session needs to take video chunks: the gateway's decoding, its decoder allowance, and its models. */
export type SessionVideo = Pick<VideoStreamOptions, 'decoding' | 'decoders' | 'maxPixels' | 'model' | 'idleMs'>;

export interface MessageSessionOptions {
  frames: FrameService;
  limits: Limits;
  maxBufferedBytes: number;
  maxMessagesPerSecond: number;
  /** The models served now (they change while the gateway runs), for `hello`. */
  models: () => { defaultModel: string; models: string[] };
  /** This gateway's name, in `hello`. */
  instance: string;
  /** The client asked for tracking (`?track=1`): detections carry `trackId`. */
  tracking?: boolean;
  /** The camera the channel's frames and video belong to (`?camera=`; DEFAULT_CAMERA when it names none). */
  camera?: string;
  /** The protocol version the client asked for (`?protocol=`), named in `hello`; the newest when it asked for none. */
  protocol?: number;
  /** The way in, for metrics: `ws`, `webrtc`. */
  transport: string;
  /** The emulated link the channel runs behind, named in `hello`. */
  link?: { spec: string; label: string };
  /** Video decoding, when the gateway decodes video: chunks are taken, and `hello.video` names the codecs. */
  video?: SessionVideo | undefined;
  /** The model and threshold of frames sent as raw images (`?model=`, `?threshold=`); the defaults when unset. */
  rawFrames?: { model?: string | undefined; threshold?: number | undefined };
  logger: Logger;
  metrics: Metrics;
}

export class MessageSession {
  private readonly stream: FrameStream;
  private readonly rate: MessageRateLimiter;
  private closing = false;
  /** Raw-image frames numbered in the order they arrived: their `id`. */
  private rawFrameCount = 0;
  /** The connection's video stream, from its first chunk. */
  private video: VideoStream | undefined;
  /** The codec the last chunk came in: keyframe requests go out in it. */
  private videoCodec: Codec = 'msgpack';

  constructor(
    private readonly channel: MessageChannel,
    private readonly options: MessageSessionOptions,
  ) {
    this.stream = options.frames.openStream({
      maxInFlight: options.limits.maxInFlight,
      queueLength: options.limits.queueLength,
      tracking: options.tracking ?? false,
      camera: options.camera ?? DEFAULT_CAMERA,
    });
    this.rate = new MessageRateLimiter(options.maxMessagesPerSecond);
    this.send(
      {
        type: 'hello',
        protocol: options.protocol ?? PROTOCOL_VERSION,
        instance: options.instance,
        ...options.models(),
        limits: options.limits,
        ...(options.tracking ? { tracking: true } : {}),
        camera: options.camera ?? DEFAULT_CAMERA,
        ...(options.link ? { link: options.link } : {}),
        ...(options.video?.decoding.available ? { video: { codecs: [...options.video.decoding.codecs] } } : {}),
      },
      'json',
    );
  }

  /** A whole message arrived: binary = MessagePack, text = JSON. */
  receive(data: Uint8Array, isBinary: boolean): void {
    const receivedAt = performance.now();
    if (this.closing) return;
    const rate = this.rate.take();
    if (rate === 'close') {
      this.closeForRate();
      return;
    }
    // A binary message that is an image file as it is (no MessagePack frame map starts with those magic bytes):
    // the simplest client's frame, answered in JSON.
    const raw = isBinary && sniffFormat(data) !== undefined;
    const codec: Codec = isBinary && !raw ? 'msgpack' : 'json';
    const { maxMessageBytes } = this.options.limits;
    if (data.byteLength > maxMessageBytes) {
      this.fail(codec, new ProtocolError('too_large', `message is ${data.byteLength} bytes; the limit is ${maxMessageBytes}`));
      return;
    }
    if (raw) {
      this.rawFrame(data, rate === 'limited', receivedAt);
      return;
    }
    let message;
    try {
      message = decodeClientMessage(data, codec);
    } catch (error) {
      this.fail(codec, error);
      return;
    }
    if (rate === 'limited') {
      const limit = this.options.maxMessagesPerSecond;
      this.fail(
        codec,
        new ProtocolError('rate_limited', `more than ${limit} messages per second on this connection; slow down`),
        message.id,
      );
      return;
    }
    if (message.type === 'ping') {
      this.send({ type: 'pong', id: message.id, ts: message.ts, serverTs: Date.now() }, codec);
      return;
    }
    if (message.type === 'chunk') {
      this.chunk(message, codec, receivedAt);
      return;
    }
    this.frame(message, codec, receivedAt);
  }

  /** A control message that counts against the rate like any other (a WebSocket protocol ping). */
  countControl(): void {
    if (this.rate.take() === 'close') this.closeForRate();
    else this.checkBuffered();
  }

  /** The channel is gone: what waits cannot be answered any more. */
  closed(): void {
    this.closing = true;
    this.stream.detach();
    this.video?.close();
  }

  /**
   * The gateway is shutting down: frames still waiting are answered `shutting_down` (so are frames that
   * arrive from now on), frames being processed finish and are answered, then the channel closes with 1001.
   */
  async drain(): Promise<void> {
    this.stream.close('shutting_down');
    await Promise.all([this.stream.whenIdle(), this.video?.drain()]);
    this.close(CLOSE_CODES.goingAway, 'gateway shutting down');
  }

  /** Closes with a code and a reason. */
  close(code: CloseCode, reason: string): void {
    if (this.closing) return;
    this.closing = true;
    // Whatever still waits cannot be answered on a closing channel.
    this.stream.detach();
    this.video?.close();
    this.channel.close(code, reason);
  }

  /**
   * A frame sent as a raw image: the model and threshold of the connection's URL, numbered by arrival (its
   * `id`), its `ts` the gateway's clock at receipt (ms since the epoch); answered in JSON like any frame.
   */
  private rawFrame(image: Uint8Array, rateLimited: boolean, receivedAt: number): void {
    const id = ++this.rawFrameCount;
    if (rateLimited) {
      const limit = this.options.maxMessagesPerSecond;
      this.fail('json', new ProtocolError('rate_limited', `more than ${limit} messages per second on this connection; slow down`), id);
      return;
    }
    const { model, threshold } = this.options.rawFrames ?? {};
    this.frame(
      {
        type: 'frame',
        id,
        ts: Date.now(),
        image,
        ...(model === undefined ? {} : { model }),
        ...(threshold === undefined ? {} : { threshold }),
      },
      'json',
      receivedAt,
    );
  }

  /** A video chunk: decoded by the connection's video stream, its picture detected like a frame. */
  private chunk(chunk: ChunkMessage, codec: Codec, receivedAt: number): void {
    const video = this.options.video;
    if (!video?.decoding.available) {
      const reason = video && !video.decoding.available ? video.decoding.reason : 'video decoding is off';
      this.fail(
        codec,
        new ProtocolError('unsupported_codec', `this gateway decodes no video (${reason}); send frames (JPEG, PNG or WebP)`),
        chunk.id,
      );
      return;
    }
    this.videoCodec = codec;
    this.video ??= new VideoStream({
      ...video,
      frames: this.options.frames,
      tracking: this.options.tracking ?? false,
      camera: this.options.camera ?? DEFAULT_CAMERA,
      requestKeyframe: (reason) => this.send({ type: 'keyframe', reason }, this.videoCodec),
    });
    this.video.push(
      {
        id: chunk.id,
        ts: chunk.ts,
        codec: chunk.codec,
        key: chunk.key,
        data: chunk.data,
        width: chunk.width,
        height: chunk.height,
        model: chunk.model,
        threshold: chunk.threshold,
      },
      this.answerFor(chunk, codec, receivedAt),
      receivedAt,
    );
  }

  private frame(frame: FrameMessage, codec: Codec, receivedAt: number): void {
    let admitted;
    try {
      // Refused here, not after queueing: an unknown model, a bad image or a pixel bomb takes no place in the queue.
      admitted = this.options.frames.admit(frame);
    } catch (error) {
      this.fail(codec, error, frame.id);
      return;
    }
    this.stream.push(admitted, this.answerFor(frame, codec, receivedAt), { receivedAt, capturedAt: frame.ts });
  }

  private answerFor(frame: { id: number; ts: number }, codec: Codec, receivedAt: number): FrameAnswer {
    const { metrics, transport } = this.options;
    return {
      detected: (detected) => {
        const reply = detectionsReply(frame, detected, receivedAt);
        this.send(reply, codec);
        metrics.frames.inc({ transport, codec, outcome: 'detections' });
        observeStages(metrics, reply.model, reply.timings, { decoder: detected.result.decoder, runner: detected.runner });
      },
      dropped: (reason, retryAfterMs) => {
        this.send({ type: 'dropped', id: frame.id, reason, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) }, codec);
        metrics.frames.inc({ transport, codec, outcome: 'dropped' });
      },
      failed: (error) => this.fail(codec, error, frame.id),
    };
  }

  private fail(codec: Codec, error: unknown, id?: number, retryAfterMs?: number): void {
    const { reply, fault } = errorReply(error, id, retryAfterMs);
    if (fault !== undefined) this.options.logger.error({ err: fault, id: reply.id }, 'frame failed');
    else this.options.logger.debug({ code: reply.code, id: reply.id, message: reply.message }, 'frame refused');
    this.send(reply, codec);
    this.options.metrics.frames.inc({ transport: this.options.transport, codec, outcome: reply.code });
  }

  private send(message: ServerMessage, codec: Codec): void {
    if (this.closing || !this.channel.open) return;
    this.channel.send(encodeMessage(message, codec), codec === 'msgpack');
    this.checkBuffered();
  }

  /** A client that does not read its answers must not make the gateway hold them without end. */
  private checkBuffered(): void {
    const buffered = this.channel.bufferedAmount;
    if (buffered <= this.options.maxBufferedBytes) return;
    this.options.metrics.closes.inc({ reason: 'slow_consumer' });
    this.close(CLOSE_CODES.slowConsumer, `not reading: ${buffered} bytes wait to be sent`);
  }

  private closeForRate(): void {
    this.options.metrics.closes.inc({ reason: 'rate_limit' });
    this.close(CLOSE_CODES.policyViolation, `message rate above ${this.options.maxMessagesPerSecond}/s`);
  }
}
