/**
 * Every constant of the Sightline wire protocol both ends share: version, paths, query parameters, content
 * types, close codes, drop reasons, error codes, model kinds. It imports nothing, so schemas.ts and the model
 * manifest build on it while protocol.ts re-exports it next to the message types inferred from schemas.ts.
 * Import it as `@sightline/shared/protocol`; docs/PROTOCOL.md describes the bytes.
 */

/**
 * Bumped whenever the protocol changes. 2 added tracking (TRACK_QUERY_PARAM, `trackId`), `retryAfterMs` on
 * refusals and the models a gateway cannot serve; 3 added video (the `chunk` message, the `keyframe` request,
 * the codecs a gateway decodes in `hello`, their error codes) and raw images per binary message. A client of
 * version 1 or 2 is still served (every addition is a message it never sends, a field it may ignore or a
 * query it does not send).
 */
export const PROTOCOL_VERSION = 3;
/** The versions a gateway of this build serves (`?protocol=`). */
export const SUPPORTED_PROTOCOLS: readonly number[] = [1, 2, 3];

/**
 * Video codecs a client may send chunks in (`chunk.codec`), as WebCodecs names their families; which of them a
 * gateway decodes, it says in `hello.video.codecs`. Each chunk is one encoded frame: VP8, VP9 and AV1 as the
 * encoder emits it (what IVF carries per frame), H.264 as Annex B (start codes, SPS and PPS with keyframes).
 */
export const VIDEO_CODECS = ['vp8', 'vp9', 'h264', 'av1'] as const;
export type VideoCodec = (typeof VIDEO_CODECS)[number];

export const WS_PATH = '/ws';
export const DETECT_PATH = '/api/detect';
export const MODELS_PATH = '/api/models';
export const HEALTH_PATH = '/healthz';
/** Liveness for orchestrators: the process can serve (no inference is run to answer it). */
export const LIVE_PATH = '/livez';
/** Readiness for orchestrators and load balancers: models loaded, workers up, not draining; 503 otherwise. */
export const READY_PATH = '/readyz';
export const METRICS_PATH = '/metrics';
/** The Open Inference Protocol's (KServe v2) root: server metadata; its model paths live under /v2/models (docs/PROTOCOL.md). */
export const V2_PATH = '/v2';
/** The Open Inference Protocol's (KServe v2) health paths. */
export const V2_LIVE_PATH = '/v2/health/live';
export const V2_READY_PATH = '/v2/health/ready';
/** How to reach this gateway from other devices (dashboard: LAN URL and QR code). */
export const ACCESS_PATH = '/api/access';
/**
 * A model's ONNX file, for clients that run the model themselves (GET; Express route syntax, `:name` a
 * model name from GET /api/models). Same access rules as the rest of /api; its ETag is its sha256.
 */
export const MODEL_FILE_PATH = '/api/models/:name/model.onnx';

/** MODEL_FILE_PATH for one model. */
export function modelFilePath(name: string): string {
  return MODEL_FILE_PATH.replace(':name', encodeURIComponent(name));
}

/** Query parameter a WebSocket client may set to the version it speaks; a mismatch closes the socket. */
export const PROTOCOL_QUERY_PARAM = 'protocol';
/**
 * `?track=1` on the WebSocket: the gateway tracks objects across this connection's frames (per model, the
 * frames' `ts` taken as their capture times, ms) and each detection of a confirmed track carries `trackId`.
 */
export const TRACK_QUERY_PARAM = 'track';
/**
 * `?model=` and `?threshold=` on the WebSocket: the model and score threshold of the frames sent as raw images
 * (a binary message holding a JPEG, PNG or WebP file as it is), which carry no fields of their own.
 */
export const MODEL_QUERY_PARAM = 'model';
export const THRESHOLD_QUERY_PARAM = 'threshold';
/**
 * `?link=PRESET|SPEC` on the WebSocket: the connection runs behind an emulated link inside the gateway (the link
 * lab's byte stream: rate, queue, delay, jitter; `@sightline/shared/link`), for clients on the gateway's own
 * machine or with the access token; `hello.link` names it. A bad spec refuses the upgrade (400) with the reason.
 * On the WHIP `POST` the same: the peer's UDP flow runs behind the datagram engine (loss too), 400 `bad_link`.
 */
export const LINK_QUERY_PARAM = 'link';

/**
 * WHIP (RFC 9725): `POST` an SDP offer here to publish over WebRTC; the `Location` answered names the session
 * resource, `DELETE` on it ends the session.
 */
export const WHIP_PATH = '/whip';
/**
 * Data channel labels of a WebRTC session: on a channel labelled `detections` (opened by the client) the
 * gateway sends one JSON `detections` message per processed frame of the video track, with its RTP timestamp;
 * any other channel carries the WebSocket's messages (frames and pings in, detections, drops, errors and pongs
 * out), binary MessagePack or text JSON.
 */
export const DETECTIONS_CHANNEL = 'detections';

/**
 * `GET` on a WHIP session's location: the gateway's own view of what it receives from that peer, per video
 * track (RFC 3550 receiver statistics). A sender's RTCP receiver reports cannot carry them: the WebRTC stack
 * the gateway runs writes zero loss and zero jitter into its reports.
 */
export interface WhipReceiveStats {
  /** SCTP's round trip, ms, when there is a data channel association. */
  rttMs?: number;
  video: Array<{
    mid: string;
    codec?: string;
    packetsReceived: number;
    /** Expected minus received since the first packet (RFC 3550 A.3). */
    packetsLost: number;
    /** Interarrival jitter (RFC 3550 A.8), ms. */
    jitterMs: number;
    bitrateBps: number;
    framesDelivered: number;
    framesDropped: number;
    keyframesRequested: number;
    nacksSent: number;
    /** What the gateway's last REMB asked of the sender, bit/s: its receive-side bandwidth estimate. */
    requestedBitrateBps: number;
    /** What its delay-based detector reads from the packets' arrival: a queue growing (`overusing`), draining, or neither. */
    bandwidthUsage: 'normal' | 'overusing' | 'underusing';
  }>;
}

export const MSGPACK_CONTENT_TYPE = 'application/msgpack';
export const JSON_CONTENT_TYPE = 'application/json';
/** Raw image bodies POST /api/detect accepts (besides JSON and MessagePack). */
export const IMAGE_CONTENT_TYPES = ['image/jpeg', 'image/png', 'image/webp'] as const;

export const CODECS = ['json', 'msgpack'] as const;
export type Codec = (typeof CODECS)[number];

/**
 * WebSocket close codes the gateway sends, and the standard ones a client may see. Both ends import
 * them from here; docs/PROTOCOL.md has the table of what a client should do on each.
 */
export const CLOSE_CODES = {
  /** The client closed on purpose (the dashboard when it stops). */
  normal: 1000,
  /** The gateway is shutting down: every frame sent before was answered; reconnect (to another replica, or once it is back). */
  goingAway: 1001,
  /** A text message that is not UTF-8 (RFC 6455 requires the close). */
  invalidPayload: 1007,
  /** The client kept sending above the message-rate limit after `rate_limited` errors: slow down, then reconnect. */
  policyViolation: 1008,
  /** A message above the hard ceiling (4x maxMessageBytes). */
  messageTooBig: 1009,
  /** The gateway has no room for another connection now: retry after a delay. */
  tryAgainLater: 1013,
  /** The client closes when the gateway's `hello` names another protocol version. */
  protocolMismatch: 4000,
  /** The gateway does not speak the version the client asked for in `?protocol=`: do not retry. */
  unsupportedProtocol: 4001,
  /** The client did not read its answers: more than the per-connection cap waited to be sent. Read, then reconnect. */
  slowConsumer: 4002,
} as const;
export type CloseCode = (typeof CLOSE_CODES)[keyof typeof CLOSE_CODES];

/** Why a frame was answered `dropped` instead of being detected. */
export const DROP_REASONS = [
  /** A newer frame from the same connection took its place in the queue (the newest frame wins). */
  'superseded',
  /** The gateway is shutting down: frames still waiting are not started. */
  'shutting_down',
  /** The gateway could not start the frame within its latency budget: the client should just send its next frame. */
  'overloaded',
] as const;
export type DropReason = (typeof DROP_REASONS)[number];

export const ERROR_CODES = [
  /** Not a message of this protocol: undecodable bytes, bad JSON, wrong field types, bad Base64. */
  'bad_message',
  /** The image bytes are not a JPEG, PNG or WebP that can be decoded. */
  'bad_image',
  /** The message or the decoded image exceeds a limit of the gateway. */
  'too_large',
  /** `model` names no model of this gateway. */
  'unknown_model',
  /** The gateway has no room for the frame now (too many waiting); try again later. */
  'overloaded',
  /** The connection sent messages faster than its rate limit; slow down (persisting closes the connection). */
  'rate_limited',
  /** No access token, or a wrong one, where the gateway requires one (HTTP and WebSocket upgrades). */
  'unauthorized',
  /** The request names a host or comes from an origin this gateway does not serve. */
  'forbidden',
  /** The model's serving engine (SIGHTLINE_INFERENCE_URL) cannot be reached now: send again after `retryAfterMs`. */
  'unavailable',
  /** A video chunk in a codec this gateway does not decode (`hello.video.codecs` lists the ones it does). */
  'unsupported_codec',
  /** A delta chunk the decoder cannot use: none of the stream's keyframes came before it, or the decoder restarted; send a keyframe. */
  'needs_keyframe',
  /** A video chunk the decoder could not decode (corrupt data, a stream it cannot take); a keyframe starts afresh. */
  'bad_video',
  /** A fault of the gateway, not of the request. */
  'internal',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** HTTP status for each error code on POST /api/detect. */
export const HTTP_STATUS_BY_ERROR: Readonly<Record<ErrorCode, number>> = {
  bad_message: 400,
  bad_image: 415,
  too_large: 413,
  unknown_model: 404,
  overloaded: 503,
  rate_limited: 429,
  unauthorized: 401,
  forbidden: 403,
  unavailable: 503,
  unsupported_codec: 415,
  needs_keyframe: 409,
  bad_video: 415,
  internal: 500,
};

export const MODEL_KINDS = ['objects', 'faces'] as const;
export type ModelKind = (typeof MODEL_KINDS)[number];

/**
 * `?camera=NAME` on the WebSocket and on WHIP (`POST /whip?camera=NAME`): the camera a stream belongs to. Its
 * rules (lines, zones) turn the stream's tracked detections into events; a stream that names none is `default`.
 * A name is 1-64 characters of letters, digits, `_`, `.` and `-`, starting with a letter or digit.
 */
export const CAMERA_QUERY_PARAM = 'camera';
export const DEFAULT_CAMERA = 'default';
export const CAMERA_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
/** GET: the cameras with rules or events. */
export const CAMERAS_PATH = '/api/cameras';
/** GET and PUT a camera's rules (Express route syntax: `:name` a camera name). */
export const CAMERA_RULES_PATH = '/api/cameras/:name/rules';
/** GET a camera's counts per rule, direction and label. */
export const CAMERA_COUNTS_PATH = '/api/cameras/:name/counts';
/** GET the event history, oldest first, paged (`?camera=&since=&limit=`). */
export const EVENTS_PATH = '/api/events';
/** Server-Sent Events: every new event (`event: detection-event`, `id:` its sequence), resumable with Last-Event-ID. */
export const EVENTS_STREAM_PATH = '/api/events/stream';

/** CAMERA_RULES_PATH for one camera. */
export function cameraRulesPath(name: string): string {
  return CAMERA_RULES_PATH.replace(':name', encodeURIComponent(name));
}
/** CAMERA_COUNTS_PATH for one camera. */
export function cameraCountsPath(name: string): string {
  return CAMERA_COUNTS_PATH.replace(':name', encodeURIComponent(name));
}
