/**
 * One WebSocket connection, top to bottom: bytes -> codec -> validation -> per-connection queue ->
 * detector -> reply in the codec the request came in. Every frame is answered exactly once
 * (detections, dropped or error) unless the socket closes first.
 */
import type { WebSocket } from 'ws';
import { decodeClientMessage, encodeMessage } from '@sightline/shared/codec';
import {
  PROTOCOL_VERSION,
  type Codec,
  type DropReason,
  type ErrorCode,
  type FrameMessage,
  type Limits,
  type ServerMessage,
} from '@sightline/shared/protocol';
import { ProtocolError } from '@sightline/shared/validation';
import type { Logger } from '../logger.ts';
import { observeStages, type Metrics } from '../metrics.ts';
import type { Detector } from '../pipeline/detector.ts';
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

const round3 = (v: number): number => Math.round(v * 1000) / 1000;

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
      this.fail(codec, 'too_large', `message is ${data.byteLength} bytes; the limit is ${this.options.limits.maxMessageBytes}`);
      return;
    }
    let message;
    try {
      message = decodeClientMessage(data, codec);
    } catch (error) {
      this.failWith(codec, error);
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
      this.failWith(codec, error, message.id);
      return;
    }
    this.queue.push({ frame: message, codec, receivedAt });
  }

  private async process({ frame, codec, receivedAt }: QueuedFrame): Promise<void> {
    if (this.socket.readyState !== this.socket.OPEN) return;
    try {
      // Time spent behind this connection's own earlier frames counts as queueing, like the wait for a worker.
      const connectionQueueMs = performance.now() - receivedAt;
      const result = await this.options.detector.detect(frame);
      const serverMs = round3(performance.now() - receivedAt);
      const timings = { ...result.timings, queueMs: round3(result.timings.queueMs + connectionQueueMs), serverMs };
      this.send({ type: 'detections', id: frame.id, ts: frame.ts, ...result, timings }, codec);
      this.options.metrics.frames.inc({ transport: 'ws', codec, outcome: 'detections' });
      observeStages(this.options.metrics, result.model, timings);
    } catch (error) {
      this.failWith(codec, error, frame.id);
    }
  }

  private drop({ frame, codec }: QueuedFrame, reason: DropReason): void {
    this.send({ type: 'dropped', id: frame.id, reason }, codec);
    this.options.metrics.frames.inc({ transport: 'ws', codec, outcome: 'dropped' });
  }

  private failWith(codec: Codec, error: unknown, id?: number): void {
    if (error instanceof ProtocolError) {
      this.fail(codec, error.code, error.message, id ?? error.id);
      return;
    }
    this.options.logger.error({ err: error, id }, 'frame failed');
    this.fail(codec, 'internal', 'internal error while processing the frame', id);
  }

  private fail(codec: Codec, code: ErrorCode, message: string, id?: number): void {
    this.send(id === undefined ? { type: 'error', code, message } : { type: 'error', id, code, message }, codec);
    this.options.metrics.frames.inc({ transport: 'ws', codec, outcome: code });
    this.options.logger.debug({ code, id, message }, 'frame refused');
  }

  private send(message: ServerMessage, codec: Codec): void {
    if (this.socket.readyState !== this.socket.OPEN) return;
    this.socket.send(encodeMessage(message, codec), { binary: codec === 'msgpack' });
  }
}
