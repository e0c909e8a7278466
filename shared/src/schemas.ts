/**
 * Every message of the protocol as a zod schema, and its TypeScript type inferred from it: the gateway
 * validates what clients send, clients validate what the gateway answers, and both compile against the
 * same shapes. Client messages have one schema per codec (the image is Base64 text in JSON, `bin` in
 * MessagePack); both produce the same type.
 */
import { z } from 'zod';
import { base64ToBytes } from './base64.ts';
import { modelInputSchema } from './model/manifest.ts';
import { DROP_REASONS, ERROR_CODES, MODEL_KINDS, VIDEO_CODECS } from './protocol-constants.ts';

export const messageId = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
export const timestamp = z.number().refine(Number.isFinite, 'must be a finite number');
export const modelName = z.string().min(1).max(100);
export const scoreThreshold = z.number().min(0).max(1);

const binaryImage = z.custom<Uint8Array>((value) => value instanceof Uint8Array, { message: 'image must be binary (MessagePack bin)' });
const base64Image = z.string({ message: 'image must be a Base64 string' }).transform((text, ctx) => {
  const bytes = base64ToBytes(text);
  if (!bytes) {
    ctx.addIssue({ code: 'custom', message: 'image is not valid Base64' });
    return z.NEVER;
  }
  return bytes;
});

// ---------------------------------------------------------------------------------------------
// Client -> gateway (strict: a misspelt field is an error, not silently ignored)

function frameSchema<T extends z.ZodType<Uint8Array, unknown>>(image: T) {
  return z.strictObject({
    type: z.literal('frame'),
    /** The client's frame number, echoed in the answer. */
    id: messageId,
    /** The client's send time (any clock, usually ms), echoed untouched so the client can compute latency. */
    ts: timestamp,
    /** Encoded JPEG, PNG or WebP bytes. Base64 string on the JSON codec. */
    image,
    /** Model name from GET /api/models; the gateway's default when absent. */
    model: modelName.optional(),
    /** Minimum score 0..1; the model's default when absent. */
    threshold: scoreThreshold.optional(),
  });
}

export const pingSchema = z.strictObject({ type: z.literal('ping'), id: messageId, ts: timestamp });

/** The largest side of a video stream a chunk may announce (the pixel limit still applies to both sides together). */
const MAX_VIDEO_SIDE = 16_384;
const videoSide = z.number().int().min(1).max(MAX_VIDEO_SIDE);

/**
 * One encoded video frame of the connection's video stream (protocol 3). Chunks are decoded in the order they
 * arrive; a keyframe starts the stream (and a new one after a codec or size change). Every chunk is answered
 * exactly once, like a frame: `detections` (its id, its ts), `dropped` (decoded, but a newer picture was
 * detected instead: `superseded`) or `error`.
 */
function chunkSchema<T extends z.ZodType<Uint8Array, unknown>>(data: T) {
  return z.strictObject({
    type: z.literal('chunk'),
    /** The client's chunk number, echoed. */
    id: messageId,
    /** The frame's capture time (any clock, usually ms), echoed untouched; tracking reads it as the capture time. */
    ts: timestamp,
    codec: z.enum(VIDEO_CODECS),
    /** A keyframe: decodable on its own. */
    key: z.boolean(),
    /** The encoded frame (VP8/VP9/AV1 as the encoder emits it; H.264 as Annex B). Base64 string on the JSON codec. */
    data,
    /** The picture's size; required with a keyframe, checked against the pixel limit before anything is decoded. */
    width: videoSide.optional(),
    height: videoSide.optional(),
    model: modelName.optional(),
    threshold: scoreThreshold.optional(),
  });
}

export const clientMessageSchemas = {
  json: z.discriminatedUnion('type', [frameSchema(base64Image), pingSchema, chunkSchema(base64Image)]),
  msgpack: z.discriminatedUnion('type', [frameSchema(binaryImage), pingSchema, chunkSchema(binaryImage)]),
} as const;

export type FrameMessage = z.output<ReturnType<typeof frameSchema<typeof binaryImage>>>;
export type PingMessage = z.output<typeof pingSchema>;
export type ChunkMessage = z.output<ReturnType<typeof chunkSchema<typeof binaryImage>>>;
export type ClientMessage = FrameMessage | PingMessage | ChunkMessage;

// ---------------------------------------------------------------------------------------------
// Gateway -> client (not strict: an older client ignores fields a newer gateway adds)

const box = z.tuple([z.number(), z.number(), z.number(), z.number()]);
const durationMs = z.number().min(0);

const detectionSchema = z.object({
  label: z.string(),
  classId: z.number().int(),
  /** 0..1 */
  score: z.number().min(0).max(1),
  /** Pixels of the submitted image (after EXIF orientation), x1 < x2, y1 < y2. */
  box,
  /** The object's identity across frames, on a connection that asked for tracking (`?track=1`); absent until confirmed. */
  trackId: z.number().int().positive().optional(),
});

export const stageTimingsSchema = z.object({
  /** Waiting: behind the connection's own earlier frames, then for a free inference worker (other clients). */
  queueMs: durationMs,
  /** Header read and size check, then image decoding (and, for frames over 1.5x the model input, resizing). */
  decodeMs: durationMs,
  /** Pixels to the model's input tensor, resampled to its size when decoding did not resize. */
  preprocessMs: durationMs,
  /** onnxruntime run, as seen from the gateway (includes the hand-off to the inference worker and back). */
  inferenceMs: durationMs,
  /** Output decoding (in the inference worker), NMS, mapping boxes back to the image. */
  postprocessMs: durationMs,
  /** From receipt of the message to the reply being handed to the socket. */
  serverMs: durationMs,
});

export const limitsSchema = z.object({
  maxMessageBytes: z.number(),
  maxPixels: z.number(),
  maxInFlight: z.number(),
  queueLength: z.number(),
  /** Messages per second before `rate_limited` (optional: gateways before it did not send it). */
  maxMessagesPerSecond: z.number().optional(),
  /** Bytes of answers waiting to be sent before the connection is closed as a slow consumer (4002). */
  maxBufferedBytes: z.number().optional(),
  /**
   * Longest predicted wait for a place a frame is accepted with, ms: a frame predicted to wait longer is
   * answered at once, `overloaded`, with `retryAfterMs` (optional: gateways before it did not send it).
   */
  queueBudgetMs: z.number().optional(),
});

/** Sent once, as JSON text, when a WebSocket connection opens. */
export const helloSchema = z.object({
  type: z.literal('hello'),
  protocol: z.number().int(),
  /** Which gateway (replica) serves this connection. Optional: gateways before it did not send it. */
  instance: z.string().optional(),
  defaultModel: z.string(),
  models: z.array(z.string()),
  limits: limitsSchema,
  /** This connection asked for tracking (`?track=1`): detections carry `trackId`. */
  tracking: z.boolean().optional(),
  /** The camera this connection's frames belong to (`?camera=`): its rules turn them into events. */
  camera: z.string().optional(),
  /** The emulated link this connection runs behind (`?link=`), as a spec and a label for people; absent: none. */
  link: z.object({ spec: z.string(), label: z.string() }).optional(),
  /** The video this gateway decodes (protocol 3): the codecs it takes chunks in; absent: none. */
  video: z.object({ codecs: z.array(z.enum(VIDEO_CODECS)) }).optional(),
});

export const detectionsSchema = z.object({
  type: z.literal('detections'),
  id: messageId,
  ts: timestamp,
  model: z.string(),
  /** Size of the submitted image in pixels. */
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  detections: z.array(detectionSchema),
  timings: stageTimingsSchema,
  /**
   * On a WebRTC session's `detections` channel: the RTP timestamp of the video track's frame these are for, as
   * the sender put it on the wire (a 32-bit, 90 kHz clock), so the sender can find its frame's capture time.
   */
  rtpTimestamp: z.number().int().min(0).max(0xffff_ffff).optional(),
});

export const pongSchema = z.object({
  type: z.literal('pong'),
  id: messageId,
  ts: timestamp,
  /** Gateway wall clock (ms since epoch) when the ping was answered. */
  serverTs: timestamp,
});

/** When to send the next frame, ms from now: the gateway's estimate of when it will have a place (`overloaded` only). */
const retryAfterMs = z.number().int().min(0);

export const droppedSchema = z.object({
  type: z.literal('dropped'),
  id: messageId,
  reason: z.enum(DROP_REASONS),
  retryAfterMs: retryAfterMs.optional(),
});

export const errorSchema = z.object({
  type: z.literal('error'),
  /** The id of the message that caused it, when one could be read. */
  id: messageId.optional(),
  code: z.enum(ERROR_CODES),
  /** A sentence for people. */
  message: z.string(),
  retryAfterMs: retryAfterMs.optional(),
});

/**
 * The gateway asks for a keyframe (protocol 3): the stream's decoder cannot go on from what it has (it started,
 * it was reset after a bad chunk or a decoder restart). Chunks until the keyframe are answered `needs_keyframe`.
 */
export const keyframeRequestSchema = z.object({
  type: z.literal('keyframe'),
  /** A sentence for people. */
  reason: z.string(),
});

export const serverMessageSchema = z.discriminatedUnion('type', [
  helloSchema,
  detectionsSchema,
  pongSchema,
  droppedSchema,
  errorSchema,
  keyframeRequestSchema,
]);

export type Box = z.output<typeof box>;
export type Detection = z.output<typeof detectionSchema>;
export type StageTimings = z.output<typeof stageTimingsSchema>;
export type Limits = z.output<typeof limitsSchema>;
export type HelloMessage = z.output<typeof helloSchema>;
export type DetectionsMessage = z.output<typeof detectionsSchema>;
export type PongMessage = z.output<typeof pongSchema>;
export type DroppedMessage = z.output<typeof droppedSchema>;
export type ErrorMessage = z.output<typeof errorSchema>;
export type KeyframeRequestMessage = z.output<typeof keyframeRequestSchema>;
export type ServerMessage = z.output<typeof serverMessageSchema>;

// ---------------------------------------------------------------------------------------------
// HTTP

/**
 * Body of POST /api/detect as JSON (image Base64) or MessagePack (image bin). A raw image body takes
 * the other fields from the query string instead (?model=&threshold=&id=&ts=).
 */
function detectBodySchema<T extends z.ZodType<Uint8Array, unknown>>(image: T) {
  return z.strictObject({
    image,
    model: modelName.optional(),
    threshold: scoreThreshold.optional(),
    /** Echoed in the answer; 0 when absent. */
    id: messageId.optional(),
    ts: timestamp.optional(),
  });
}

export const detectBodySchemas = {
  json: detectBodySchema(base64Image),
  msgpack: detectBodySchema(binaryImage),
} as const;

export type DetectRequestBody = z.output<(typeof detectBodySchemas)['msgpack']>;

/** The query string that accompanies a raw image body. */
export const detectQuerySchema = z.strictObject({
  model: modelName.optional(),
  threshold: z.coerce.number().pipe(scoreThreshold).optional(),
  id: z.coerce.number().pipe(messageId).optional(),
  ts: z.coerce.number().pipe(timestamp).optional(),
});

/**
 * What a client needs to run a model itself (the dashboard's on-device inference) with the same maths as
 * the gateway (`@sightline/shared/model`): the model file, and the manifest's description of its input and
 * outputs. Optional in ModelInfo: gateways before it did not send it.
 */
export const onDeviceModelSchema = z.object({
  /** The model file, served by the gateway under the same access rules as GET /api/models. */
  file: z.object({
    /** MODEL_FILE_PATH with the name filled in, plus `?sha256=` as a cache key. */
    url: z.string().min(1),
    /** Hex SHA-256 of the file, to check before use; also its ETag. */
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    /** Size in bytes. */
    bytes: z.number().int().positive(),
  }),
  license: z.string(),
  /** The manifest's input: tensor name, layout, dtype, size, resize mode and value range. */
  input: modelInputSchema,
  /** Decoder role -> ONNX output name. */
  outputs: z.record(z.string(), z.string()),
  /**
   * The manifest's decoder kind (`ssd`, `blazeface`, ...). A plain string on the wire, so a client that
   * does not know a newer kind loses on-device inference for that model only, not the model list.
   */
  decoder: z.string().min(1),
  /** Every output column's label, index = the decoder's label index; an empty string marks an unused column. */
  labels: z.array(z.string()),
  /** `coco`: classId = label index + 1; absent: classId = label index. */
  classIds: z.enum(['coco']).optional(),
  iouThreshold: z.number().min(0).max(1),
  maxDetections: z.number().int().positive(),
});

/** One entry of GET /api/models. */
export const modelInfoSchema = z.object({
  name: z.string(),
  title: z.string(),
  kind: z.enum(MODEL_KINDS),
  default: z.boolean(),
  input: z.object({
    width: z.number().int().positive(),
    height: z.number().int().positive(),
    layout: z.enum(['NHWC', 'NCHW']),
    resize: z.enum(['stretch', 'letterbox']),
  }),
  /** The labels the model reports (its unused output columns left out). */
  labels: z.array(z.string()),
  scoreThreshold,
  /** What a client needs to run the model itself; absent from gateways that do not serve model files. */
  onDevice: onDeviceModelSchema.optional(),
});

/** A model folder the gateway found but cannot serve, and why (for the person who put it there). */
export const unavailableModelSchema = z.object({ name: z.string(), reason: z.string() });

export const modelsResponseSchema = z.object({
  protocol: z.number().int(),
  /** Empty when no model is being served. */
  defaultModel: z.string(),
  models: z.array(modelInfoSchema),
  /** Optional: gateways before it did not send it. */
  unavailable: z.array(unavailableModelSchema).optional(),
});

export const GATEWAY_STATES = ['ready', 'draining'] as const;
export type GatewayState = (typeof GATEWAY_STATES)[number];

/** GET /healthz: the gateway's state for people and simple checks (200 when ok, 503 otherwise). */
export const healthResponseSchema = z.object({
  ok: z.boolean(),
  protocol: z.number().int(),
  /** `draining` from the first shutdown signal on. Optional: gateways before it did not send it. */
  state: z.enum(GATEWAY_STATES).optional(),
  /** Which gateway (replica) answered. */
  instance: z.string().optional(),
  modelsLoaded: z.array(z.string()),
  /** Model folders that could not be served, with the reason. Optional: gateways before it did not send it. */
  modelsUnavailable: z.array(unavailableModelSchema).optional(),
  uptimeS: z.number().min(0),
});

/** GET /readyz: 200 with ready true, or 503 with the reason. */
export const readinessResponseSchema = z.object({ ready: z.boolean(), reason: z.string().optional() });

/** GET /api/access: the addresses other devices can open (with the token when one is needed). */
export const accessInfoSchema = z.object({
  /** Listening beyond this machine (`--host`). */
  exposed: z.boolean(),
  secure: z.boolean(),
  tokenRequired: z.boolean(),
  /** URLs on this machine. */
  local: z.array(z.string()),
  /** URLs on the LAN, first the one a phone most likely reaches; empty when not exposed. */
  network: z.array(z.string()),
});

export type ModelInfo = z.output<typeof modelInfoSchema>;
export type UnavailableModel = z.output<typeof unavailableModelSchema>;
export type OnDeviceModel = z.output<typeof onDeviceModelSchema>;
export type AccessInfo = z.output<typeof accessInfoSchema>;
export type ModelsResponse = z.output<typeof modelsResponseSchema>;
export type HealthResponse = z.output<typeof healthResponseSchema>;
export type ReadinessResponse = z.output<typeof readinessResponseSchema>;
