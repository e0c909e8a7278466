/**
 * Runtime validation of everything that crosses the wire. The gateway validates what clients send;
 * clients (dashboard, benchmark) validate what the gateway answers. Schemas mirror protocol.ts.
 */
import { z } from 'zod';
import { base64ToBytes } from './base64.ts';
import {
  DROP_REASONS,
  ERROR_CODES,
  type ClientMessage,
  type Codec,
  type DetectRequestBody,
  type ErrorCode,
  type ServerMessage,
} from './protocol.ts';

/** A message that could not be accepted, with the protocol error code it maps to. */
export class ProtocolError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** The offending message's id, when it had a readable one. */
    readonly id?: number,
  ) {
    super(message);
    this.name = 'ProtocolError';
  }
}

const messageId = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const timestamp = z.number().refine(Number.isFinite, 'must be a finite number');
const modelName = z.string().min(1).max(100);
const threshold = z.number().min(0).max(1);

const binaryImage = z.instanceof(Uint8Array, { message: 'image must be binary (MessagePack bin)' });
const base64Image = z
  .string({ message: 'image must be a Base64 string' })
  .transform((text, ctx) => {
    const bytes = base64ToBytes(text);
    if (!bytes) {
      ctx.addIssue({ code: 'custom', message: 'image is not valid Base64' });
      return z.NEVER;
    }
    return bytes;
  });

function frameSchema<T extends z.ZodType<Uint8Array, unknown>>(image: T) {
  return z.strictObject({
    type: z.literal('frame'),
    id: messageId,
    ts: timestamp,
    image,
    model: modelName.optional(),
    threshold: threshold.optional(),
  });
}

const pingSchema = z.strictObject({ type: z.literal('ping'), id: messageId, ts: timestamp });

const clientSchemas = {
  json: z.discriminatedUnion('type', [frameSchema(base64Image), pingSchema]),
  msgpack: z.discriminatedUnion('type', [frameSchema(binaryImage), pingSchema]),
} as const;

function detectBodySchema<T extends z.ZodType<Uint8Array, unknown>>(image: T) {
  return z.strictObject({
    image,
    model: modelName.optional(),
    threshold: threshold.optional(),
    id: messageId.optional(),
    ts: timestamp.optional(),
  });
}

const detectBodySchemas = {
  json: detectBodySchema(base64Image),
  msgpack: detectBodySchema(binaryImage),
} as const;

/** Validates the JSON or MessagePack body of POST /api/detect. */
export function validateDetectRequestBody(value: unknown, codec: Codec): DetectRequestBody {
  const result = detectBodySchemas[codec].safeParse(value);
  if (!result.success) throw new ProtocolError('bad_message', describeIssues(result.error), readableId(value));
  return result.data as DetectRequestBody;
}

/** Validates the query string fields that accompany a raw image body. */
export function validateDetectQuery(query: Record<string, unknown>): Omit<DetectRequestBody, 'image'> {
  const schema = z.strictObject({
    model: modelName.optional(),
    threshold: z.coerce.number().pipe(threshold).optional(),
    id: z.coerce.number().pipe(messageId).optional(),
    ts: z.coerce.number().pipe(timestamp).optional(),
  });
  const result = schema.safeParse(query);
  if (!result.success) throw new ProtocolError('bad_message', describeIssues(result.error));
  return result.data;
}

function readableId(value: unknown): number | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const id = (value as { id?: unknown }).id;
  return messageId.safeParse(id).success ? (id as number) : undefined;
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');
}

/** Validates a decoded client message; throws {@link ProtocolError} `bad_message` with the reason. */
export function validateClientMessage(value: unknown, codec: Codec): ClientMessage {
  const result = clientSchemas[codec].safeParse(value);
  if (!result.success) {
    throw new ProtocolError('bad_message', describeIssues(result.error), readableId(value));
  }
  return result.data as ClientMessage;
}

// ---------------------------------------------------------------------------------------------
// Gateway -> client

const box = z.tuple([z.number(), z.number(), z.number(), z.number()]);
const durationMs = z.number().min(0);

const serverSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('hello'),
    protocol: z.number().int(),
    defaultModel: z.string(),
    models: z.array(z.string()),
    limits: z.object({
      maxMessageBytes: z.number(),
      maxPixels: z.number(),
      maxInFlight: z.number(),
      queueLength: z.number(),
    }),
  }),
  z.object({
    type: z.literal('detections'),
    id: messageId,
    ts: timestamp,
    model: z.string(),
    width: z.number().int().positive(),
    height: z.number().int().positive(),
    detections: z.array(
      z.object({ label: z.string(), classId: z.number().int(), score: z.number().min(0).max(1), box }),
    ),
    timings: z.object({
      queueMs: durationMs,
      decodeMs: durationMs,
      preprocessMs: durationMs,
      inferenceMs: durationMs,
      postprocessMs: durationMs,
      serverMs: durationMs,
    }),
  }),
  z.object({ type: z.literal('pong'), id: messageId, ts: timestamp, serverTs: timestamp }),
  z.object({ type: z.literal('dropped'), id: messageId, reason: z.enum(DROP_REASONS) }),
  z.object({
    type: z.literal('error'),
    id: messageId.optional(),
    code: z.enum(ERROR_CODES),
    message: z.string(),
  }),
]);

/** Validates a decoded gateway message; throws {@link ProtocolError} `bad_message`. */
export function validateServerMessage(value: unknown): ServerMessage {
  const result = serverSchema.safeParse(value);
  if (!result.success) throw new ProtocolError('bad_message', describeIssues(result.error));
  return result.data as ServerMessage;
}
