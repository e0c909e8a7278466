/**
 * One WebSocket connection, top to bottom: bytes -> codec -> validation -> per-connection queue ->
 * detector -> reply in the codec the request came in. Every frame is answered exactly once
 * (detections, dropped or error) unless the socket closes first.
 */
import type { WebSocket } from 'ws';
import { decodeClientMessage, encodeMessage, ProtocolError } from '@sightline/shared/codec';
import {
  PROTOCOL_VERSION,
  type Codec,
  type DropReason,
  type FrameMessage,
  type Limits,
  type ServerMessage,
} from '@sightline/shared/protocol';
import type { Logger } from '../logger.ts';
import { observeStages, type Metrics } from '../metrics.ts';
import type { Detector } from '../pipeline/detector.ts';
import { detectionsReply, errorReply } from '../replies.ts';
import { FrameQueue } from './frame-queue.ts';

interface QueuedFrame {
  frame: FrameMessage;
  codec: Codec;
  receivedAt: number;
}

export interface FrameSessionOptions {
  detector: Detector;
  limits: Limits;
  defaultModel: string;
  models: string[];
  logger: Logger;
  metrics: Metrics;
}

export class FrameSession {
  private readonly queue: FrameQueue<QueuedFrame>;

  constructor(
    private readonly socket: WebSocket,
    private readonly options: FrameSessionOptions,
  ) {
    this.queue = new FrameQueue<QueuedFrame>({
      maxInFlight: options.limits.maxInFlight,
      queueLength: options.limits.queueLength,
      process: (item) => this.process(item),
      drop: (item, reason) => this.drop(item, reason),
    });
    socket.on('message', (data, isBinary) => this.receive(data as Buffer, isBinary));
    socket.on('close', () => this.queue.close());
    this.send(
      {
        type: 'hello',
        protocol: PROTOCOL_VERSION,
        defaultModel: options.defaultModel,
        models: options.models,
        limits: options.limits,
      },
      'json',
    );
  }

  private receive(data: Buffer, isBinary: boolean): void {
    const receivedAt = performance.now();
    const codec: Codec = isBinary ? 'msgpack' : 'json';
    if (data.byteLength > this.options.limits.maxMessageBytes) {
      const limit = this.options.limits.maxMessageBytes;
      this.fail(codec, new ProtocolError('too_large', `message is ${data.byteLength} bytes; the limit is ${limit}`));
      return;
    }
    let message;
    try {
      message = decodeClientMessage(data, codec);
    } catch (error) {
      this.fail(codec, error);
      return;
    }
    if (message.type === 'ping') {
      this.send({ type: 'pong', id: message.id, ts: message.ts, serverTs: Date.now() }, codec);
      return;
    }
    try {
      // Refused here, not after queueing, so a typo in `model` costs no inference slot.
      this.options.detector.resolveModel(message.model);
    } catch (error) {
      this.fail(codec, error, message.id);
      return;
    }
    this.queue.push({ frame: message, codec, receivedAt });
  }

  private async process({ frame, codec, receivedAt }: QueuedFrame): Promise<void> {
    if (this.socket.readyState !== this.socket.OPEN) return;
    try {
      const connectionQueueMs = performance.now() - receivedAt;
      const result = await this.options.detector.detect(frame);
      const reply = detectionsReply(frame, result, { receivedAt, connectionQueueMs });
      this.send(reply, codec);
      this.options.metrics.frames.inc({ transport: 'ws', codec, outcome: 'detections' });
      observeStages(this.options.metrics, reply.model, reply.timings);
    } catch (error) {
      this.fail(codec, error, frame.id);
    }
  }

  private drop({ frame, codec }: QueuedFrame, reason: DropReason): void {
    this.send({ type: 'dropped', id: frame.id, reason }, codec);
    this.options.metrics.frames.inc({ transport: 'ws', codec, outcome: 'dropped' });
  }

  private fail(codec: Codec, error: unknown, id?: number): void {
    const { reply, fault } = errorReply(error, id);
    if (fault !== undefined) this.options.logger.error({ err: fault, id: reply.id }, 'frame failed');
    else this.options.logger.debug({ code: reply.code, id: reply.id, message: reply.message }, 'frame refused');
    this.send(reply, codec);
    this.options.metrics.frames.inc({ transport: 'ws', codec, outcome: reply.code });
  }

  private send(message: ServerMessage, codec: Codec): void {
    if (this.socket.readyState !== this.socket.OPEN) return;
    this.socket.send(encodeMessage(message, codec), { binary: codec === 'msgpack' });
  }
}
