/**
 * Runtime validation of everything that crosses the wire, against the schemas in schemas.ts. The
 * gateway validates what clients send; clients (dashboard, benchmark) validate what the gateway answers.
 */
import type { z } from 'zod';
import type { Codec, ErrorCode } from './protocol.ts';
import {
  accessInfoSchema,
  clientMessageSchemas,
  detectBodySchemas,
  detectQuerySchema,
  healthResponseSchema,
  messageId,
  modelsResponseSchema,
  serverMessageSchema,
  type AccessInfo,
  type ClientMessage,
  type DetectRequestBody,
  type HealthResponse,
  type ModelsResponse,
  type ServerMessage,
} from './schemas.ts';

/** A message that could not be accepted, with the protocol error code it maps to. */
export class ProtocolError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** The offending message's id, when it had a readable one. */
    readonly id?: number,
    /** When the client may send again (a refusal for a reason that passes: overloaded, unavailable), ms. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'ProtocolError';
  }
}

function readableId(value: unknown): number | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const id = (value as { id?: unknown }).id;
  return messageId.safeParse(id).success ? (id as number) : undefined;
}

/** Longest error message the gateway sends: enough for a person, too short to echo a client's payload back. */
export const MAX_ERROR_MESSAGE_CHARS = 300;

/** `text` cut to at most `max` characters, marking the cut. */
export function excerpt(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

/**
 * The first issues, each quoting at most a short excerpt of the input: zod names unknown keys and
 * paths verbatim, and a client-chosen 190 kB key must not come back as a 190 kB error.
 */
function describeIssues(error: z.ZodError): string {
  const text = error.issues
    .slice(0, 3)
    .map((issue) => {
      const path = issue.path.map((part) => excerpt(String(part), 40)).join('.');
      const message = excerpt(issue.message, 100);
      return path ? `${path}: ${message}` : message;
    })
    .join('; ');
  return excerpt(text, MAX_ERROR_MESSAGE_CHARS);
}

/** Validates a decoded client message; throws {@link ProtocolError} `bad_message` with the reason. */
export function validateClientMessage(value: unknown, codec: Codec): ClientMessage {
  const result = clientMessageSchemas[codec].safeParse(value);
  if (!result.success) throw new ProtocolError('bad_message', describeIssues(result.error), readableId(value));
  return result.data;
}

/** Validates the JSON or MessagePack body of POST /api/detect. */
export function validateDetectRequestBody(value: unknown, codec: Codec): DetectRequestBody {
  const result = detectBodySchemas[codec].safeParse(value);
  if (!result.success) throw new ProtocolError('bad_message', describeIssues(result.error), readableId(value));
  return result.data;
}

/** Validates the query string fields that accompany a raw image body. */
export function validateDetectQuery(query: Record<string, unknown>): Omit<DetectRequestBody, 'image'> {
  const result = detectQuerySchema.safeParse(query);
  if (!result.success) throw new ProtocolError('bad_message', describeIssues(result.error));
  return result.data;
}

/** Validates a decoded gateway message; throws {@link ProtocolError} `bad_message`. */
export function validateServerMessage(value: unknown): ServerMessage {
  const result = serverMessageSchema.safeParse(value);
  if (!result.success) throw new ProtocolError('bad_message', describeIssues(result.error));
  return result.data;
}

function validateResponse<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new Error(`${what} is not what this client understands: ${describeIssues(result.error)}`);
  return result.data;
}

/** Validates the body of GET /api/models; throws an Error naming what is wrong. */
export function validateModelsResponse(value: unknown): ModelsResponse {
  return validateResponse(modelsResponseSchema, value, 'the model list (GET /api/models)');
}

/** Validates the body of GET /api/access; throws an Error naming what is wrong. */
export function validateAccessInfo(value: unknown): AccessInfo {
  return validateResponse(accessInfoSchema, value, 'the access answer (GET /api/access)');
}

/** Validates the body of GET /healthz; throws an Error naming what is wrong. */
export function validateHealthResponse(value: unknown): HealthResponse {
  return validateResponse(healthResponseSchema, value, 'the health answer (GET /healthz)');
}
