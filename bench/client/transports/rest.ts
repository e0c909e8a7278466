/**
 * HTTP: POST /api/detect, one request at a time per client. `rest` opens a new TCP connection per request
 * (agent keepAlive false + Connection: close); `rest-keepalive` reuses one keep-alive connection (maxSockets 1).
 * Bytes are counted on the socket: request line, headers and body as sent; status line, headers and body read.
 */
import http from 'node:http';
import https from 'node:https';
import type net from 'node:net';
import { encode as msgpackEncode } from '@msgpack/msgpack';
import { parseWire } from '@sightline/shared/codec';
import { DETECT_PATH, MSGPACK_CONTENT_TYPE } from '@sightline/shared/protocol';
import { validateServerMessage } from '@sightline/shared/validation';
import { authHeaders, tlsOptions, unauthorizedHint, type ClientAccess } from '../access.ts';
import type { ImageCodec } from '../args.ts';
import type { ClientDriver, FrameInput, FrameReport, Recorder, Workload } from '../types.ts';
import { detectionsResult, resultFromReply } from './ws-connection.ts';

/** REST carries one image per request: the image codecs only. */
export type RestCodec = ImageCodec;

export interface RestOptions {
  baseUrl: string;
  codec: RestCodec;
  keepAlive: boolean;
  timeoutMs: number;
  model?: string | undefined;
  threshold?: number | undefined;
  access?: ClientAccess | undefined;
}

interface Body {
  bytes: Uint8Array;
  contentType: string;
}

export function encodeBody(input: FrameInput, options: Pick<RestOptions, 'codec' | 'model' | 'threshold'>): Body {
  if (options.codec === 'raw') return { bytes: input.bytes, contentType: input.contentType };
  const fields: { image: Uint8Array | string; model?: string; threshold?: number } = { image: input.bytes };
  if (options.model !== undefined) fields.model = options.model;
  if (options.threshold !== undefined) fields.threshold = options.threshold;
  if (options.codec === 'msgpack') return { bytes: msgpackEncode(fields, { ignoreUndefined: true }), contentType: MSGPACK_CONTENT_TYPE };
  fields.image = Buffer.from(input.bytes.buffer, input.bytes.byteOffset, input.bytes.byteLength).toString('base64');
  return { bytes: Buffer.from(JSON.stringify(fields), 'utf8'), contentType: 'application/json' };
}

/** Path and query of the request; a raw body cannot carry model/threshold, so they go in the query. */
export function detectPath(baseUrl: string, options: Pick<RestOptions, 'codec' | 'model' | 'threshold'>): string {
  const url = new URL(baseUrl);
  const path = url.pathname.replace(/\/+$/, '') + DETECT_PATH;
  if (options.codec !== 'raw') return path;
  const query = new URLSearchParams();
  if (options.model !== undefined) query.set('model', options.model);
  if (options.threshold !== undefined) query.set('threshold', String(options.threshold));
  const q = query.toString();
  return q ? `${path}?${q}` : path;
}

/** Turns an HTTP answer into a frame result (2xx detections, 4xx/5xx protocol error). */
export function interpretResponse(
  status: number,
  contentType: string | undefined,
  body: Buffer,
  latencyMs: number,
  bytesUp: number,
  bytesDown: number,
): FrameReport {
  const codec = contentType?.startsWith(MSGPACK_CONTENT_TYPE) ? 'msgpack' : 'json';
  let value: unknown;
  try {
    value = parseWire(codec === 'json' ? body.toString('utf8') : new Uint8Array(body.buffer, body.byteOffset, body.byteLength), codec);
  } catch (error) {
    return {
      outcome: 'error',
      latencyMs,
      bytesUp,
      bytesDown,
      errorCode: `http_${status}`,
      errorMessage: `unreadable ${codec} body: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  try {
    return resultFromReply(validateServerMessage(value), latencyMs, bytesUp, bytesDown);
  } catch {
    // HTTP answers need not echo id/ts: read what the table needs without the WS schema's strictness.
    const v = value as { type?: unknown; code?: unknown; message?: unknown; detections?: unknown; timings?: unknown };
    if (status < 400 && v.type === 'detections' && Array.isArray(v.detections) && typeof v.timings === 'object' && v.timings) {
      return detectionsResult(v as Parameters<typeof detectionsResult>[0], latencyMs, bytesUp, bytesDown);
    }
    return {
      outcome: 'error',
      latencyMs,
      bytesUp,
      bytesDown,
      errorCode: typeof v.code === 'string' ? v.code : `http_${status}`,
      errorMessage: typeof v.message === 'string' ? v.message : `HTTP ${status}`,
    };
  }
}

export class RestDriver implements ClientDriver {
  private readonly agent: http.Agent;
  private readonly url: URL;
  private readonly path: string;

  constructor(private readonly options: RestOptions) {
    this.url = new URL(options.baseUrl);
    const secure = this.url.protocol === 'https:';
    const Agent = secure ? https.Agent : http.Agent;
    const tls = secure ? tlsOptions(options.access) : {};
    this.agent = options.keepAlive ? new Agent({ keepAlive: true, maxSockets: 1, ...tls }) : new Agent({ keepAlive: false, ...tls });
    this.path = detectPath(options.baseUrl, options);
  }

  /** A REST client never "loses" its connection: each request stands on its own. */
  readonly alive = true;

  async open(): Promise<void> {}

  async run(work: Workload, recorder: Recorder): Promise<void> {
    for (let item = work.next(); item; item = work.next()) {
      const startedAt = performance.now();
      const result = await this.request(item.input, startedAt);
      recorder.frame(item, startedAt, result);
      if (result.connectMs !== undefined) recorder.net('connect', result.connectMs);
      if (result.ttfbMs !== undefined && result.serverMs !== undefined) recorder.net('ttfb-server', result.ttfbMs - result.serverMs);
    }
  }

  request(input: FrameInput, startedAt = performance.now()): Promise<FrameReport> {
    const body = encodeBody(input, this.options);
    const headers: http.OutgoingHttpHeaders = {
      'Content-Type': body.contentType,
      'Content-Length': body.bytes.byteLength,
      Accept: this.options.codec === 'msgpack' ? MSGPACK_CONTENT_TYPE : 'application/json',
      ...authHeaders(this.options.access),
    };
    if (!this.options.keepAlive) headers.Connection = 'close';
    const request = (this.url.protocol === 'https:' ? https : http).request;
    return new Promise<FrameReport>((resolve) => {
      let settled = false;
      let socket: net.Socket | undefined;
      let written0 = 0;
      let read0 = 0;
      let connectMs: number | undefined;
      let ttfbMs: number | undefined;
      const counted = () => ({
        up: socket ? socket.bytesWritten - written0 : 0,
        down: socket ? socket.bytesRead - read0 : 0,
      });
      const finish = (result: FrameReport) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (connectMs !== undefined) result.connectMs = connectMs;
        if (ttfbMs !== undefined) result.ttfbMs = ttfbMs;
        resolve(result);
      };
      /** No answer to read: the bytes that went each way, and why. */
      const finishUnanswered = (outcome: FrameReport['outcome'], errorCode: string, errorMessage: string) => {
        const c = counted();
        finish({ outcome, latencyMs: Number.NaN, bytesUp: c.up, bytesDown: c.down, errorCode, errorMessage });
      };
      const req = request({
        protocol: this.url.protocol,
        hostname: this.url.hostname,
        port: this.url.port,
        method: 'POST',
        path: this.path,
        headers,
        agent: this.agent,
      });
      const timer = setTimeout(() => {
        finishUnanswered('timeout', 'timeout', `no answer within ${this.options.timeoutMs} ms`);
        req.destroy();
      }, this.options.timeoutMs);
      req.on('socket', (s: net.Socket) => {
        socket = s;
        written0 = s.bytesWritten;
        read0 = s.bytesRead;
        if (s.connecting) {
          const connectStart = performance.now();
          s.once(this.url.protocol === 'https:' ? 'secureConnect' : 'connect', () => (connectMs = performance.now() - connectStart));
        }
      });
      req.on('error', (error) => finishUnanswered('failed', (error as NodeJS.ErrnoException).code ?? 'request_failed', error.message));
      req.on('response', (res) => {
        ttfbMs = performance.now() - startedAt;
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', (error) => finishUnanswered('failed', 'response_failed', error.message));
        res.on('end', () => {
          const c = counted();
          const result = interpretResponse(res.statusCode ?? 0, res.headers['content-type'], Buffer.concat(chunks), 0, c.up, c.down);
          result.latencyMs = performance.now() - startedAt;
          if (res.statusCode === 401)
            result.errorMessage = `${result.errorMessage ?? 'HTTP 401'} (${unauthorizedHint(this.options.access?.token)})`;
          finish(result);
        });
      });
      req.end(body.bytes);
    });
  }

  async close(): Promise<void> {
    this.agent.destroy();
  }
}
