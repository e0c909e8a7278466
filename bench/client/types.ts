/** Types shared by the benchmark client's modules. */
import type { VideoCodec } from '@sightline/shared/protocol';

/** One encoded image (or video frame) the client sends, prepared once before the run. */
export interface FrameInput {
  /** File name (or `video#N`), for the CSV. */
  name: string;
  bytes: Uint8Array;
  /** image/jpeg, image/png or image/webp: the Content-Type of a raw REST body; video/vp8 and so on for a chunk. */
  contentType: string;
  width: number;
  height: number;
  /** A video frame: sent as a `chunk` of the connection's stream, in order after the one before it. */
  video?: { codec: VideoCodec; key: boolean };
}

/**
 * ok: `detections` came back. dropped: the gateway answered `dropped`. error: the gateway answered `error`
 * (or an HTTP 4xx/5xx). timeout: no answer within --timeout. failed: the connection broke or could not be
 * opened before an answer came. timeout and failed are "unanswered" and make the CLI exit non-zero.
 * held: an open-loop camera's frame never sent, because the gateway's last refusal said when to send
 * again (`retryAfterMs`) and that time had not come.
 */
export type Outcome = 'ok' | 'dropped' | 'error' | 'timeout' | 'failed' | 'held';

export const UNANSWERED: ReadonlySet<Outcome> = new Set<Outcome>(['timeout', 'failed']);

/**
 * What a transport reports for one frame: how it was answered, how long it took, the bytes both ways (a
 * measurement of the client, not the model's FrameResult of @sightline/shared/model).
 */
export interface FrameReport {
  outcome: Outcome;
  /** Full-process latency: from just before encoding the request to the decoded reply; NaN when unanswered. */
  latencyMs: number;
  /** Bytes on the wire for this frame (WS: payload + frame header; REST: request headers + body as sent). */
  bytesUp: number;
  /** Bytes on the wire for the answer (WS: payload + frame header; REST: response headers + body). */
  bytesDown: number;
  errorCode?: string;
  errorMessage?: string;
  /** On a refusal: when the gateway said to send the next frame, ms after the answer. */
  retryAfterMs?: number;
  detections?: number;
  serverMs?: number;
  inferenceMs?: number;
  queueMs?: number;
  decodeMs?: number;
  preprocessMs?: number;
  postprocessMs?: number;
  /** REST / short WS: TCP connect time of a new connection. */
  connectMs?: number;
  /** REST: time to the response headers. */
  ttfbMs?: number;
  /** Short WS: time until the WebSocket upgrade completed. */
  handshakeMs?: number;
  /** Open loop (--rate): how long after its scheduled time the frame actually went out. */
  sendLagMs?: number;
  /** WebSocket: the gateway replica that served the connection (`hello.instance`), when it names itself. */
  instance?: string;
}

/** One frame as the run measured it: what came back, and which client sent it when. */
export interface FrameMeasurement extends FrameReport {
  repeat: number;
  client: number;
  /** Frame number within its client and phase. */
  seq: number;
  warmup: boolean;
  input: string;
  /** Send time relative to the start of its phase (warm-up or measured) of its repeat, ms. */
  startMs: number;
}

/**
 * Network-only latency estimates. ping: WebSocket ping/pong round trip. connect: TCP connect of a new
 * connection. handshake: TCP connect + WebSocket upgrade. ttfb-server: REST time to first byte minus the
 * gateway's serverMs (network, HTTP parsing and framing of one request/response).
 */
export type NetKind = 'ping' | 'connect' | 'handshake' | 'ttfb-server';

export interface NetSample {
  repeat: number;
  client: number;
  kind: NetKind;
  ms: number;
  /** probe: on the idle connection before any frame; warmup samples are left out of the statistics. */
  phase: 'probe' | 'warmup' | 'measure';
}

/** The frames one client still has to send in one phase. Shared by the lanes of a pipelined client. */
export interface Workload {
  /**
   * The next frame to send, or undefined when the phase is over for this client. `at` is when the frame is
   * due (open loop: its scheduled time, so a client running late still sends what was due before the end).
   */
  next(at?: number): { seq: number; input: FrameInput } | undefined;
}

/** How a transport hands results back to the run. */
export interface Recorder {
  frame(item: { seq: number; input: FrameInput }, startedAt: number, result: FrameReport): void;
  net(kind: NetKind, ms: number): void;
  /** A WebSocket was opened and greeted by `instance` (undefined: the server does not name itself). */
  connection?(instance: string | undefined): void;
}

/** One WebSocket a client opened, and the replica that greeted it. */
export interface ConnectionRecord {
  client: number;
  instance: string | undefined;
  /** probe: opened before the warm-up (persistent connections); short connections open per frame. */
  phase: 'probe' | 'warmup' | 'measure';
}

/** One benchmark client: one connection (or one connection per frame), driven by the run. */
export interface ClientDriver {
  /** Opens the persistent connection, if the transport has one. Throws when it cannot. */
  open(recorder: Recorder): Promise<void>;
  /** Sends the workload's frames until it is exhausted; resolves when every sent frame is settled. */
  run(work: Workload, recorder: Recorder): Promise<void>;
  /** Sends one network-only probe (WS ping) if the transport supports it. */
  probe?(recorder: Recorder): Promise<void>;
  /** False once the connection is lost: the run stops feeding this client. */
  readonly alive: boolean;
  /** Video: the gateway asked for a keyframe and none has gone out since. */
  readonly keyframeWanted?: boolean;
  close(): Promise<void>;
}
