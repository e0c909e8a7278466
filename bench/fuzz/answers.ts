/**
 * The fuzz runner's WebSocket, on the shared wire client: opened only once the gateway has greeted it, the
 * gateway's answers taken one at a time (pongs, keyframe requests and the greeting aside), a ping whose pong must come back
 * with nothing else in between, and every message or close put in the runner's vocabulary of outcomes
 * (fuzz-case.ts).
 */
import { WireClient, type WireEvent } from '@sightline/harness/client';
import type { Observation } from './fuzz-case.ts';
import { encodeValue } from './wire-input.ts';

/** How much of a reply's validation problem a report keeps. */
const PROBLEM_CHARS = 200;

/** A message or close as an outcome of the shared vocabulary (fuzz-case.ts). */
export function observe(event: WireEvent): Observation {
  if (event.kind === 'close') return { outcome: `close:${event.code}`, message: event.reason };
  const value = event.kind === 'message' ? event.message : event.value;
  const v = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  const type = typeof v.type === 'string' ? v.type : 'unreadable';
  const outcome =
    type === 'detections'
      ? 'detections'
      : type === 'dropped'
        ? `dropped:${String(v.reason)}`
        : type === 'error'
          ? `error:${String(v.code)}`
          : `unexpected:${type}`;
  const seen: Observation = { outcome, replyBytes: event.bytes };
  if (typeof v.id === 'number') seen.id = v.id;
  if (typeof v.width === 'number') seen.width = v.width;
  if (typeof v.height === 'number') seen.height = v.height;
  if (typeof v.message === 'string') seen.message = v.message;
  if (event.kind === 'unreadable') seen.invalidReply = event.problem.slice(0, PROBLEM_CHARS);
  return seen;
}

/** Opens a connection and waits for its hello (bounded); a gateway that closes it at once is an error. */
export async function openGreeted(baseUrl: string, timeoutMs: number): Promise<WireClient> {
  let client: WireClient;
  try {
    client = await WireClient.connect(baseUrl, { handshakeTimeoutMs: timeoutMs });
  } catch (error) {
    throw new Error(`WebSocket could not be opened: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  if (await client.waitForHello(timeoutMs)) return client;
  client.terminate();
  const closed = client.closeEvent;
  throw new Error(closed ? `closed at once (${closed.code} ${closed.reason})` : 'no hello');
}

/**
 * Pongs answer the runner's own checks, the greeting came before any case, and a keyframe request asks the
 * client for something rather than answering what it sent: none answers a case.
 */
function isAnswer(client: WireClient, event: WireEvent): boolean {
  if (event.kind !== 'message') return true;
  return event.message.type !== 'pong' && event.message.type !== 'keyframe' && event.message !== client.greeting;
}

/** The next message or close that answers something the runner sent; undefined after `timeoutMs` without one. */
export async function nextAnswer(client: WireClient, timeoutMs: number): Promise<WireEvent | undefined> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const event = await client.next(Math.max(0, deadline - performance.now()));
    if (!event || isAnswer(client, event)) return event;
  }
}

export interface PingResult {
  /** The pong came back. */
  ok: boolean;
  /** Whatever else arrived first: a second answer to an earlier message, a close. */
  extras: WireEvent[];
  timedOut: boolean;
}

/** Sends a ping and waits for its pong, collecting whatever else arrives before it. */
export async function pingThrough(client: WireClient, id: number, codec: 'json' | 'msgpack', timeoutMs: number): Promise<PingResult> {
  const extras: WireEvent[] = [];
  if (!client.open) {
    // What the connection said before it went: taken now, nothing more will come.
    for (let event = await nextAnswer(client, 0); event; event = await nextAnswer(client, 0)) extras.push(event);
    return { ok: false, extras, timedOut: false };
  }
  client.sendRaw(encodeValue({ type: 'ping', id, ts: 1 }, codec), { text: codec === 'json' });
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const event = await client.next(Math.max(0, deadline - performance.now()));
    if (!event) return { ok: false, extras, timedOut: true };
    if (event.kind === 'message' && event.message.type === 'pong') {
      if (event.message.id === id) return { ok: true, extras, timedOut: false };
      continue;
    }
    if (!isAnswer(client, event)) continue;
    extras.push(event);
    if (event.kind === 'close') return { ok: false, extras, timedOut: false };
  }
}
