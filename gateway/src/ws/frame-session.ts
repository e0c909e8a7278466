/**
 * One WebSocket connection, top to bottom: bytes -> rate limit -> codec -> validation -> the connection's
 * lane in the fair scheduler -> detector -> reply in the codec the request came in. Every frame is
 * answered exactly once (detections, dropped or error), or the connection is closed with a code and a
 * reason (CLOSE_CODES): when the gateway drains, when the client does not read its answers, when it keeps
 * sending above its rate.
 */
import type { WebSocket } from 'ws';
import { decodeClientMessage, encodeMessage, ProtocolError } from '@sightline/shared/codec';
import {
  CLOSE_CODES,
  PROTOCOL_VERSION,
  type CloseCode,
  type Codec,
  type DropReason,
  type FrameMessage,
  type Limits,
  type ServerMessage,
} from '@sightline/shared/protocol';
import type { Logger } from '../logger.ts';
import { observeStages, type Metrics } from '../metrics.ts';
import type { AdmittedFrame, Detector } from '../frames/detector.ts';
import { detectionsReply, errorReply } from '../frames/replies.ts';
import type { FairScheduler, Lane } from '../scheduling/fair-scheduler.ts';
import { ConnectionTracks } from '../tracking/connection-tracks.ts';
import { closeWithin } from './close-socket.ts';
import { MessageRateLimiter } from './message-rate-limiter.ts';

interface QueuedFrame {
  frame: FrameMessage;
  admitted: AdmittedFrame;
  codec: Codec;
  receivedAt: number;
}

export interface FrameSessionOptions {
  detector: Detector;
  scheduler: FairScheduler;
  limits: Limits;
  /** Frames waiting across the gateway before new ones are refused (named in the `overloaded` answer). */
  maxPending: number;
  maxBufferedBytes: number;
  maxMessagesPerSecond: number;
  /** The models served now (they change while the gateway runs), for `hello`. */
  models: () => { defaultModel: string; models: string[] };
  /** This gateway's name, in `hello`. */
  instance: string;
  /** The client asked for tracking (`?track=1`): detections carry `trackId`. */
  tracking?: boolean;
  /** The protocol version the client asked for (`?protocol=`), named in `hello`; the newest when it asked for none. */
  protocol?: number;
  logger: Logger;
  metrics: Metrics;
}

export class FrameSession {
  private readonly lane: Lane<QueuedFrame>;
  private readonly rate: MessageRateLimiter;
  private readonly tracks: ConnectionTracks | undefined;
  private closing = false;

  constructor(
    private readonly socket: WebSocket,
    private readonly options: FrameSessionOptions,
  ) {
    this.lane = options.scheduler.lane<QueuedFrame>({
      maxInFlight: options.limits.maxInFlight,
      queueLength: options.limits.queueLength,
      process: (item) => this.process(item),
      drop: (item, reason, retryAfterMs) => this.drop(item, reason, retryAfterMs),
      cost: (item) => item.admitted.decodeBytes,
    });
    this.rate = new MessageRateLimiter(options.maxMessagesPerSecond);
    this.tracks = options.tracking ? new ConnectionTracks() : undefined;
    socket.on('message', (data, isBinary) => this.receive(data as Buffer, isBinary));
    // ws answers protocol-level pings by itself: they count against the rate and the send buffer too.
    socket.on('ping', () => {
      if (this.rate.take() === 'close') this.closeForRate();
      else this.checkBuffered();
    });
    socket.on('close', () => this.lane.detach());
    this.send(
      {
        type: 'hello',
        protocol: options.protocol ?? PROTOCOL_VERSION,
        instance: options.instance,
        ...options.models(),
        limits: options.limits,
        ...(options.tracking ? { tracking: true } : {}),
      },
      'json',
    );
  }

  /**
   * The gateway is shutting down: frames still waiting are answered `shutting_down` (so are frames that
   * arrive from now on), frames being processed finish and are answered, then the socket closes with 1001.
   */
  async drain(): Promise<void> {
    this.lane.close('shutting_down');
    await this.lane.whenIdle();
    this.close(CLOSE_CODES.goingAway, 'gateway shutting down');
  }

  /** Closes with a code and a reason; a peer that does not complete the closing handshake is cut off soon after. */
  close(code: CloseCode, reason: string): void {
    if (this.closing) return;
    this.closing = true;
    // Whatever still waits cannot be answered on a closing socket.
    this.lane.detach();
    closeWithin(this.socket, code, reason);
  }

  private receive(data: Buffer, isBinary: boolean): void {
    const receivedAt = performance.now();
    if (this.closing) return;
    const rate = this.rate.take();
    if (rate === 'close') {
      this.closeForRate();
      return;
    }
    const codec: Codec = isBinary ? 'msgpack' : 'json';
    const { maxMessageBytes } = this.options.limits;
    if (data.byteLength > maxMessageBytes) {
      this.fail(codec, new ProtocolError('too_large', `message is ${data.byteLength} bytes; the limit is ${maxMessageBytes}`));
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
    let admitted: AdmittedFrame;
    try {
      // Refused here, not after queueing: an unknown model, a bad image or a pixel bomb takes no place in the queue.
      admitted = this.options.detector.admit(message);
    } catch (error) {
      this.fail(codec, error, message.id);
      return;
    }
    if (this.lane.push({ frame: message, admitted, codec, receivedAt }) === 'refused') {
      const waiting = this.options.maxPending;
      this.fail(
        codec,
        new ProtocolError('overloaded', `the gateway already holds ${waiting} frames waiting; send the next one later`),
        message.id,
        this.options.scheduler.retryAfterMs(),
      );
    }
  }

  private async process({ frame, admitted, codec, receivedAt }: QueuedFrame): Promise<void> {
    if (this.closing) return;
    try {
      const startedAt = performance.now();
      const detected = await this.options.detector.detect(admitted);
      const result = this.tracks
        ? { ...detected, detections: this.tracks.identify(detected.model, detected.detections, frame.ts) }
        : detected;
      const reply = detectionsReply(frame, result, { receivedAt, startedAt });
      this.send(reply, codec);
      this.options.metrics.frames.inc({ transport: 'ws', codec, outcome: 'detections' });
      observeStages(this.options.metrics, reply.model, reply.timings, result);
    } catch (error) {
      this.fail(codec, error, frame.id);
    }
  }

  private drop({ frame, codec }: QueuedFrame, reason: DropReason, retryAfterMs?: number): void {
    this.send({ type: 'dropped', id: frame.id, reason, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) }, codec);
    this.options.metrics.frames.inc({ transport: 'ws', codec, outcome: 'dropped' });
  }

  private fail(codec: Codec, error: unknown, id?: number, retryAfterMs?: number): void {
    const { reply, fault } = errorReply(error, id, retryAfterMs);
    if (fault !== undefined) this.options.logger.error({ err: fault, id: reply.id }, 'frame failed');
    else this.options.logger.debug({ code: reply.code, id: reply.id, message: reply.message }, 'frame refused');
    this.send(reply, codec);
    this.options.metrics.frames.inc({ transport: 'ws', codec, outcome: reply.code });
  }

  private send(message: ServerMessage, codec: Codec): void {
    if (this.closing || this.socket.readyState !== this.socket.OPEN) return;
    this.socket.send(encodeMessage(message, codec), { binary: codec === 'msgpack' });
    this.checkBuffered();
  }

  /** A client that does not read its answers must not make the gateway hold them without end. */
  private checkBuffered(): void {
    const buffered = this.socket.bufferedAmount;
    if (buffered <= this.options.maxBufferedBytes) return;
    this.options.metrics.closes.inc({ reason: 'slow_consumer' });
    this.close(CLOSE_CODES.slowConsumer, `not reading: ${buffered} bytes wait to be sent`);
  }

  private closeForRate(): void {
    this.options.metrics.closes.inc({ reason: 'rate_limit' });
    this.close(CLOSE_CODES.policyViolation, `message rate above ${this.options.maxMessagesPerSecond}/s`);
  }
}
