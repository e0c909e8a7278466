/**
 * Sightline wire protocol, as clients and the gateway import it (`@sightline/shared/protocol`): every constant
 * both ends share (protocol-constants.ts) and the TypeScript types of the messages. The messages themselves
 * are zod schemas in schemas.ts and their types are inferred from those schemas (re-exported here), so a type
 * and the check that enforces it cannot drift apart. Imports run one way, protocol.ts -> schemas.ts ->
 * protocol-constants.ts, so modules inside shared/ import constants from protocol-constants.ts, never from here.
 * docs/PROTOCOL.md describes the bytes.
 *
 * Transport rules (see docs/PROTOCOL.md):
 * - WebSocket at `WS_PATH`. A binary message is MessagePack, a text message is JSON with the image
 *   as Base64. Every reply goes out in the codec its request came in.
 * - HTTP: POST `DETECT_PATH`, GET `MODELS_PATH`, GET `MODEL_FILE_PATH`, GET `HEALTH_PATH`.
 */
export * from './protocol-constants.ts';

export type {
  Box,
  ChunkMessage,
  ClientMessage,
  DetectRequestBody,
  Detection,
  DetectionsMessage,
  DroppedMessage,
  ErrorMessage,
  FrameMessage,
  HealthResponse,
  HelloMessage,
  KeyframeRequestMessage,
  Limits,
  ModelInfo,
  ModelsResponse,
  OnDeviceModel,
  PingMessage,
  PongMessage,
  ReadinessResponse,
  AccessInfo,
  ServerMessage,
  StageTimings,
  UnavailableModel,
} from './schemas.ts';
