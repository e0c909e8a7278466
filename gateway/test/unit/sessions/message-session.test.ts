import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { WebSocket } from 'ws';
import { decodeServerMessage, encodeMessage } from '@sightline/shared/codec';
import { CLOSE_CODES, type ServerMessage } from '@sightline/shared/protocol';
import { MessageSession, type MessageSessionOptions } from '../../../src/sessions/message-session.ts';
import { CLOSE_GRACE_MS } from '../../../src/ws/close-socket.ts';
import { wsChannel } from '../../../src/ws/ws-channel.ts';
import { HeldFrames, heldSessionOptions } from '../../support/held-frames.ts';

/** The part of a ws WebSocket a session uses, recording what the session does with it. */
class FakeSocket extends EventEmitter {
  readonly OPEN = 1;
  readonly CLOSED = 3;
  readyState = 1;
  bufferedAmount = 0;
  readonly sent: ServerMessage[] = [];
  closedWith: { code: number; reason: string } | undefined;
  terminated = false;

  send(data: string | Uint8Array): void {
    this.sent.push(decodeServerMessage(data));
  }
  close(code: number, reason: string): void {
    this.closedWith = { code, reason };
  }
  terminate(): void {
    this.terminated = true;
    this.readyState = this.CLOSED;
    this.emit('close');
  }
  /** A message from the client. */
  receive(message: Parameters<typeof encodeMessage>[0]): void {
    this.emit('message', Buffer.from(encodeMessage(message, 'msgpack')), true);
  }
}

/** A message session on a WebSocket channel over the fake socket, wired as the socket server wires it. */
function session(overrides: Partial<MessageSessionOptions> = {}) {
  const socket = new FakeSocket();
  const held = new HeldFrames(1);
  const options = heldSessionOptions(held, {
    queue: { budgetMs: 60_000, maxWaiting: 100 },
    limits: { maxMessageBytes: 1_000_000, maxPixels: 1e7, maxInFlight: 1, queueLength: 2 },
    instance: 'test-gateway',
    ...overrides,
  });
  const frameSession = new MessageSession(wsChannel(socket as unknown as WebSocket), { transport: 'ws', ...options });
  socket.on('message', (data: Buffer, isBinary: boolean) => frameSession.receive(data, isBinary));
  socket.on('close', () => frameSession.closed());
  const finishNext = async () => {
    held.answerOldest();
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { socket, frameSession, finishNext };
}

const frame = (id: number) => ({ type: 'frame' as const, id, ts: id, image: new Uint8Array([0xff, 0xd8, 0xff]) });
const kinds = (sent: ServerMessage[]) =>
  sent.map((m) => (m.type === 'dropped' ? `dropped:${m.reason}` : m.type === 'error' ? `error:${m.code}` : m.type));

describe('message session', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('closes a connection whose unsent answers pass the cap with 4002, and cuts it if the peer does not answer the close', () => {
    const { socket } = session({ maxBufferedBytes: 1000 });
    socket.bufferedAmount = 5000;
    socket.receive({ type: 'ping', id: 1, ts: 1 });
    expect(socket.closedWith?.code).toBe(CLOSE_CODES.slowConsumer);
    expect(socket.closedWith?.reason).toMatch(/not reading: 5\d+ bytes wait to be sent/);
    expect(socket.terminated).toBe(false);
    vi.advanceTimersByTime(CLOSE_GRACE_MS);
    expect(socket.terminated).toBe(true);
  });

  it('answers messages over the rate `rate_limited` with their id, and closes 1008 when the client persists', () => {
    const { socket } = session({ maxMessagesPerSecond: 10 });
    for (let id = 1; id <= 12; id++) socket.receive({ type: 'ping', id, ts: id });
    expect(kinds(socket.sent.slice(1))).toEqual([...Array(10).fill('pong'), 'error:rate_limited', 'error:rate_limited']);
    expect(socket.sent.at(-1)).toMatchObject({ id: 12 });
    for (let id = 13; id <= 30; id++) socket.receive({ type: 'ping', id, ts: id });
    expect(socket.closedWith).toEqual({ code: CLOSE_CODES.policyViolation, reason: 'message rate above 10/s' });
  });

  it('drains: waiting frames answered shutting_down at once, the running one detected, then 1001', async () => {
    const { socket, frameSession, finishNext } = session();
    socket.receive(frame(1));
    vi.advanceTimersByTime(0); // the end of the event loop's turn: frame 1 starts
    for (const id of [2, 3]) socket.receive(frame(id));
    const drained = frameSession.drain();
    socket.receive(frame(4));
    expect(kinds(socket.sent.slice(1))).toEqual(['dropped:shutting_down', 'dropped:shutting_down', 'dropped:shutting_down']);
    expect(socket.closedWith).toBeUndefined();
    await finishNext();
    await drained;
    expect(kinds(socket.sent.slice(1))).toEqual(['dropped:shutting_down', 'dropped:shutting_down', 'dropped:shutting_down', 'detections']);
    expect(socket.sent.at(-1)).toMatchObject({ id: 1 });
    expect(socket.closedWith).toEqual({ code: CLOSE_CODES.goingAway, reason: 'gateway shutting down' });
  });

  it('never echoes a large unknown key back: the error quotes a short excerpt', () => {
    const { socket } = session();
    const key = 'k'.repeat(190_000);
    socket.emit('message', Buffer.from(JSON.stringify({ type: 'ping', id: 5, ts: 1, [key]: 1 })), false);
    const error = socket.sent.at(-1)!;
    expect(error).toMatchObject({ type: 'error', code: 'bad_message', id: 5 });
    expect(error.type === 'error' && error.message.length).toBeLessThanOrEqual(300);
  });
});
