/**
 * Every HTTP answer the gateway sends as a protocol message goes out here, its errors above all: one
 * builder (replies.ts `errorReply`, which bounds the message's length and turns the gateway's own faults
 * into a bare `internal`), one status table (HTTP_STATUS_BY_ERROR), both codecs.
 */
import type { Response } from 'express';
import { encodeMessage } from '@sightline/shared/codec';
import {
  HTTP_STATUS_BY_ERROR,
  JSON_CONTENT_TYPE,
  MSGPACK_CONTENT_TYPE,
  type Codec,
  type ErrorCode,
  type ServerMessage,
} from '@sightline/shared/protocol';
import type { Logger } from '../logger.ts';
import { errorReply } from '../frames/replies.ts';

export function sendMessage(response: Response, status: number, message: ServerMessage, codec: Codec = 'json'): void {
  response.status(status);
  if (codec === 'msgpack') response.type(MSGPACK_CONTENT_TYPE).send(Buffer.from(encodeMessage(message, 'msgpack')));
  else response.type(JSON_CONTENT_TYPE).send(encodeMessage(message, 'json'));
}

export interface ErrorResponseOptions {
  codec?: Codec;
  /** The request's message id, when it had a readable one. */
  id?: number | undefined;
  /** When to send again (an `overloaded` refusal). */
  retryAfterMs?: number | undefined;
  /** Where the gateway's own faults are logged (they are never sent). */
  logger: Logger;
  /** What the request was, for the log line of a fault. */
  context: string;
}

/** Answers `error` with the status its code maps to; returns the code sent (for metrics). */
export function sendError(response: Response, error: unknown, options: ErrorResponseOptions): ErrorCode {
  const { reply, fault } = errorReply(error, options.id, options.retryAfterMs);
  if (fault !== undefined) options.logger.error({ err: fault }, `${options.context} failed`);
  setRetryAfter(response, reply.retryAfterMs);
  sendMessage(response, HTTP_STATUS_BY_ERROR[reply.code], reply, options.codec);
  return reply.code;
}

/**
 * An error of the KServe v2 endpoints, in the Open Inference Protocol's form (`{"error": "..."}`, what
 * tritonclient shows), built by the same `errorReply` with the same status table.
 */
export function sendV2Error(response: Response, error: unknown, options: Omit<ErrorResponseOptions, 'codec' | 'id'>): ErrorCode {
  const { reply, fault } = errorReply(error, undefined, options.retryAfterMs);
  if (fault !== undefined) options.logger.error({ err: fault }, `${options.context} failed`);
  setRetryAfter(response, reply.retryAfterMs);
  response.status(HTTP_STATUS_BY_ERROR[reply.code]).json({ error: `${reply.code}: ${reply.message}` });
  return reply.code;
}

/** HTTP's own way of saying when to come back, in whole seconds, beside the body's retryAfterMs. */
function setRetryAfter(response: Response, retryAfterMs: number | undefined): void {
  if (retryAfterMs !== undefined) response.setHeader('Retry-After', String(Math.max(1, Math.ceil(retryAfterMs / 1000))));
}
