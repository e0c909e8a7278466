/**
 * What one fuzz case is (bytes for one channel) and what a correct gateway does with it, in one vocabulary
 * of outcomes shared by the generator (what it accepts) and the runner (what it saw):
 *
 *   detections | dropped:<reason> | error:<code>     a WebSocket reply
 *   close:<code>                                     the gateway closed the WebSocket with this code
 *   http <status> detections | http <status> error:<code> | http <status>   an HTTP answer
 *   tcp:http-<status> | tcp:closed | tcp:open        raw TCP: the gateway answered this status and closed, closed, or kept it open
 *   timeout | failed                                 no answer within the case's time, or the connection broke otherwise
 */
import { HTTP_STATUS_BY_ERROR, type ErrorCode } from '@sightline/shared/protocol';

export const CATEGORIES = [
  'random-bytes',
  'truncated-msgpack',
  'garbled-msgpack',
  'wrong-shape',
  'unknown-keys',
  'broken-json',
  'broken-base64',
  'deep-nesting',
  'not-an-image',
  'truncated-jpeg',
  'image-bomb',
  'odd-image',
  'oversize',
  'invalid-utf8',
  'gzip-bomb',
  'wrong-content-type',
  'tcp-garbage',
  'bad-ws-framing',
  'bad-video',
  'bad-rules',
] as const;
export type Category = (typeof CATEGORIES)[number];

/** How the bytes travel: a WebSocket message (binary = MessagePack, text = JSON), an HTTP request, raw TCP. */
export type Channel = 'ws-binary' | 'ws-text' | 'http' | 'tcp' | 'tcp-ws';

export type FuzzInput =
  /** One WebSocket message on the shared connection; text frames are sent byte for byte (invalid UTF-8 included). */
  | { channel: 'ws-binary' | 'ws-text'; data: Uint8Array }
  /** One request on a new connection. */
  | { channel: 'http'; method: 'POST' | 'GET' | 'PUT'; path: string; headers: Record<string, string>; body: Uint8Array }
  /** Raw bytes on a new TCP connection to the gateway's port. */
  | { channel: 'tcp'; bytes: Uint8Array }
  /** A new connection upgraded to WebSocket by hand, then these bytes as if they were WebSocket frames. */
  | { channel: 'tcp-ws'; bytes: Uint8Array };

export interface Expectation {
  /** Outcomes that are correct, in the vocabulary above. */
  accept: string[];
  /** The `id` an error or detections reply must carry (the message had a readable one). */
  id?: number;
  /** Size a `detections` reply must report (the image's, after EXIF orientation). */
  size?: { width: number; height: number };
}

export interface FuzzCase {
  index: number;
  category: Category;
  channel: Channel;
  /** What the case is, for people: "id is a string", "1x600 JPEG, model blazeface-back-256". */
  name: string;
  input: FuzzInput;
  expect: Expectation;
}

/** The longest `message` an error reply may have: a sentence, quoting at most a short excerpt of the input. */
export const MAX_ERROR_MESSAGE_CHARS = 300;

/** What the runner saw for a case. */
export interface Observation {
  outcome: string;
  /** The reply's id, when it had one. */
  id?: number;
  width?: number;
  height?: number;
  /** The error reply's message (or a close reason). */
  message?: string;
  /** Size of the reply as it arrived (message payload or HTTP body), bytes. */
  replyBytes?: number;
  /** The reply did not pass the protocol's schema. */
  invalidReply?: string;
}

/** Outcome strings of WebSocket replies, for expectations. */
export const reply = {
  detections: 'detections',
  error: (code: ErrorCode) => `error:${code}`,
  dropped: (reason: string) => `dropped:${reason}`,
  close: (code: number) => `close:${code}`,
};

/** The HTTP outcome of an answer: the status the protocol gives each error code. */
export function httpOutcome(answer: 'detections' | ErrorCode): string {
  return answer === 'detections' ? 'http 200 detections' : `http ${HTTP_STATUS_BY_ERROR[answer]} error:${answer}`;
}

/**
 * Answers that are true for a frame that reaches the detector on a busy gateway: it may be shed
 * (dropped or refused as overloaded) instead of detected, but never misreported.
 */
export const LOAD_SHEDDING_WS = [reply.dropped('overloaded'), reply.error('overloaded')];
export const LOAD_SHEDDING_HTTP = [httpOutcome('overloaded')];

export interface Verdict {
  pass: boolean;
  problems: string[];
}

/** Whether `seen` is a correct answer to `expect`: the outcome, the echoed id and size, and a bounded error message. */
export function judge(expect: Expectation, seen: Observation): Verdict {
  const problems: string[] = [];
  if (!expect.accept.includes(seen.outcome)) problems.push(`expected ${expect.accept.join(' | ')}`);
  const isReply = seen.outcome === 'detections' || seen.outcome.startsWith('error:') || / (detections|error:)/.test(seen.outcome);
  if (isReply && expect.id !== undefined && seen.id !== expect.id) problems.push(`reply id ${seen.id ?? 'missing'}, expected ${expect.id}`);
  if (expect.size && seen.outcome.endsWith('detections') && (seen.width !== expect.size.width || seen.height !== expect.size.height)) {
    problems.push(`reported ${seen.width}x${seen.height}, expected ${expect.size.width}x${expect.size.height}`);
  }
  if (seen.message !== undefined && seen.outcome.includes('error:') && seen.message.length > MAX_ERROR_MESSAGE_CHARS) {
    problems.push(`error message of ${seen.message.length} chars (limit ${MAX_ERROR_MESSAGE_CHARS})`);
  }
  if (seen.outcome.includes('error:internal')) problems.push('internal error');
  if (seen.invalidReply) problems.push(`reply breaks the protocol: ${seen.invalidReply}`);
  return { pass: problems.length === 0, problems };
}
