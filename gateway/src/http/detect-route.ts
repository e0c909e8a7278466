/**
 * POST /api/detect: one image per request, as a raw body, JSON (Base64) or MessagePack. Answers the
 * same `detections` message as the WebSocket, as JSON, or MessagePack when the client accepts it.
 */
import express, { type Request, type Response, type Router } from 'express';
import { parseWire } from '@sightline/shared/codec';
import {
  IMAGE_CONTENT_TYPES,
  JSON_CONTENT_TYPE,
  MSGPACK_CONTENT_TYPE,
  type Codec,
  type DetectRequestBody,
} from '@sightline/shared/protocol';
import { ProtocolError, validateDetectQuery, validateDetectRequestBody } from '@sightline/shared/validation';
import type { Logger } from '../logger.ts';
import { observeStages, type Metrics } from '../metrics.ts';
import type { FrameService } from '../frames/frame-service.ts';
import { reserveBody, type ReceiveBudget } from '../scheduling/receive-budget.ts';
import { detectOnce } from './detect-once.ts';
import { sendError, sendMessage } from '../frames/http-answers.ts';

function replyCodec(request: Request): Codec {
  return (request.get('accept') ?? '').includes(MSGPACK_CONTENT_TYPE) ? 'msgpack' : 'json';
}

function readRequest(request: Request): { body: DetectRequestBody; codec: Codec | 'raw' } {
  const type = (request.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const bytes: unknown = request.body;
  if (!(bytes instanceof Buffer) || bytes.length === 0) {
    throw new ProtocolError('bad_message', `empty body; send an image (${IMAGE_CONTENT_TYPES.join(', ')}), JSON or MessagePack`);
  }
  if ((IMAGE_CONTENT_TYPES as readonly string[]).includes(type) || type === 'application/octet-stream') {
    return { body: { image: bytes, ...validateDetectQuery(request.query as Record<string, unknown>) }, codec: 'raw' };
  }
  if (type === JSON_CONTENT_TYPE) return { body: validateDetectRequestBody(parseWire(bytes, 'json'), 'json'), codec: 'json' };
  if (type === MSGPACK_CONTENT_TYPE) {
    return { body: validateDetectRequestBody(parseWire(bytes, 'msgpack'), 'msgpack'), codec: 'msgpack' };
  }
  throw new ProtocolError(
    'bad_message',
    `unsupported Content-Type "${type}"; use ${[...IMAGE_CONTENT_TYPES, JSON_CONTENT_TYPE, MSGPACK_CONTENT_TYPE].join(', ')}`,
  );
}

export function detectRouter(deps: {
  frames: FrameService;
  maxMessageBytes: number;
  receiveBudget: ReceiveBudget;
  logger: Logger;
  metrics: Metrics;
}): Router {
  const router = express.Router();
  router.post(
    '/',
    reserveBody(deps.receiveBudget, deps.maxMessageBytes),
    express.raw({ type: () => true, limit: deps.maxMessageBytes }),
    async (request: Request, response: Response) => {
      const receivedAt = performance.now();
      const codec = replyCodec(request);
      let requestCodec: Codec | 'raw' = 'raw';
      let id: number | undefined;
      try {
        const parsed = readRequest(request);
        requestCodec = parsed.codec;
        id = parsed.body.id;
        const { reply, result } = await detectOnce(deps, parsed.body, receivedAt);
        sendMessage(response, 200, reply, codec);
        deps.metrics.frames.inc({ transport: 'http', codec: requestCodec, outcome: 'detections' });
        observeStages(deps.metrics, reply.model, reply.timings, result);
      } catch (error) {
        const code = sendError(response, error, { codec, id, logger: deps.logger, context: 'detect request' });
        deps.metrics.frames.inc({ transport: 'http', codec: requestCodec, outcome: code });
      }
    },
  );
  return router;
}
