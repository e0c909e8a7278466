/**
 * Sightline wire protocol: the one definition of every message both directions carry.
 * Gateway, dashboard and benchmark client import these types; docs/PROTOCOL.md describes the bytes.
 *
 * Transport rules (see docs/PROTOCOL.md):
 * - WebSocket at {@link WS_PATH}. A binary message is MessagePack, a text message is JSON with the image
 *   as Base64. Every reply goes out in the codec its request came in.
 * - HTTP: POST {@link DETECT_PATH}, GET {@link MODELS_PATH}, GET {@link HEALTH_PATH}.
 */

/** Bumped on any incompatible change to a message below. */
export const PROTOCOL_VERSION = 1;

export const WS_PATH = '/ws';
export const DETECT_PATH = '/api/detect';
export const MODELS_PATH = '/api/models';
export const HEALTH_PATH = '/healthz';
export const METRICS_PATH = '/metrics';

/** Query parameter a WebSocket client may set to the version it speaks; a mismatch closes the socket. */
export const PROTOCOL_QUERY_PARAM = 'protocol';

export const MSGPACK_CONTENT_TYPE = 'application/msgpack';

export type Codec = 'json' | 'msgpack';
export const CODECS: readonly Codec[] = ['json', 'msgpack'];

// ---------------------------------------------------------------------------------------------
// Client -> gateway

export interface FrameMessage {
  type: 'frame';
  /** The client's frame number, echoed in the answer. */
  id: number;
  /** The client's send time (any clock, usually ms), echoed untouched so the client can compute latency. */
  ts: number;
  /** Encoded JPEG, PNG or WebP bytes. Base64 string on the JSON codec. */
  image: Uint8Array;
  /** Model name from GET /api/models; the gateway's default when absent. */
  model?: string;
  /** Minimum score 0..1; the model's default when absent. */
  threshold?: number;
}

export interface PingMessage {
  type: 'ping';
  id: number;
  ts: number;
}

export type ClientMessage = FrameMessage | PingMessage;

// ---------------------------------------------------------------------------------------------
// Gateway -> client

export type Box = [x1: number, y1: number, x2: number, y2: number];

export interface Detection {
  label: string;
  classId: number;
  /** 0..1 */
  score: number;
  /** Pixels of the submitted image (after EXIF orientation), x1 < x2, y1 < y2. */
  box: Box;
}

export interface StageTimings {
  /** Waiting: behind the connection's own earlier frames, then for a free inference worker (other clients). */
  queueMs: number;
  /** Header read and size check, then decoding (and, for frames over 1.5x the model input, resizing in libvips). */
  decodeMs: number;
  /** Pixels to the model's input tensor, resampled to its size when decoding did not resize. */
  preprocessMs: number;
  /** onnxruntime run, as seen from the gateway (includes the hand-off to the inference worker and back). */
  inferenceMs: number;
  /** Output decoding (in the inference worker), NMS, mapping boxes back to the image. */
  postprocessMs: number;
  /** From receipt of the message to the reply being handed to the socket. */
  serverMs: number;
}

export interface DetectionsMessage {
  type: 'detections';
  id: number;
  ts: number;
  model: string;
  /** Size of the submitted image in pixels. */
  width: number;
  height: number;
  detections: Detection[];
  timings: StageTimings;
}

export interface PongMessage {
  type: 'pong';
  id: number;
  ts: number;
  /** Gateway wall clock (ms since epoch) when the ping was answered. */
  serverTs: number;
}

export const DROP_REASONS = ['superseded', 'shutting_down'] as const;
export type DropReason = (typeof DROP_REASONS)[number];

export interface DroppedMessage {
  type: 'dropped';
  id: number;
  /** `superseded`: a newer frame from the same connection took its place in the queue. */
  reason: DropReason;
}

export const ERROR_CODES = [
  /** Not a message of this protocol: undecodable bytes, bad JSON, wrong field types, bad Base64. */
  'bad_message',
  /** The image bytes are not a JPEG, PNG or WebP that can be decoded. */
  'bad_image',
  /** The message or the decoded image exceeds a limit of the gateway. */
  'too_large',
  /** `model` names no model of this gateway. */
  'unknown_model',
  /** The gateway's inference queue is full; try again later. */
  'overloaded',
  /** A fault of the gateway, not of the request. */
  'internal',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ErrorMessage {
  type: 'error';
  /** The id of the message that caused it, when one could be read. */
  id?: number;
  code: ErrorCode;
  message: string;
}

export interface Limits {
  maxMessageBytes: number;
  maxPixels: number;
  maxInFlight: number;
  queueLength: number;
}

/** Sent once, as JSON text, when a WebSocket connection opens. */
export interface HelloMessage {
  type: 'hello';
  protocol: number;
  defaultModel: string;
  models: string[];
  limits: Limits;
}

export type ServerMessage =
  | HelloMessage
  | DetectionsMessage
  | PongMessage
  | DroppedMessage
  | ErrorMessage;

// ---------------------------------------------------------------------------------------------
// HTTP

/**
 * Body of POST /api/detect as JSON (image Base64) or MessagePack (image bin). A raw image body takes
 * the other fields from the query string instead (?model=&threshold=&id=&ts=).
 */
export interface DetectRequestBody {
  image: Uint8Array;
  model?: string;
  threshold?: number;
  /** Echoed in the answer; 0 when absent. */
  id?: number;
  ts?: number;
}

/** Content types POST /api/detect accepts. */
export const IMAGE_CONTENT_TYPES = ['image/jpeg', 'image/png', 'image/webp'] as const;
export const JSON_CONTENT_TYPE = 'application/json';

export type ModelKind = 'objects' | 'faces';

/** One entry of GET /api/models. */
export interface ModelInfo {
  name: string;
  title: string;
  kind: ModelKind;
  default: boolean;
  input: { width: number; height: number; layout: 'NHWC' | 'NCHW'; resize: 'stretch' | 'letterbox' };
  labels: string[];
  scoreThreshold: number;
}

export interface ModelsResponse {
  protocol: number;
  defaultModel: string;
  models: ModelInfo[];
}

export interface HealthResponse {
  ok: boolean;
  protocol: number;
  modelsLoaded: string[];
  uptimeS: number;
}

/** HTTP status for each error code on POST /api/detect. */
export const HTTP_STATUS_BY_ERROR: Readonly<Record<ErrorCode, number>> = {
  bad_message: 400,
  bad_image: 415,
  too_large: 413,
  unknown_model: 404,
  overloaded: 503,
  internal: 500,
};
