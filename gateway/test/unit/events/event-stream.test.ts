/**
 * The SSE stream against a stand-in response: rules first; live events by camera; a resume (Last-Event-ID) that
 * replays what was missed from the database a page at a time, waiting for the client to read each, then goes
 * live with no gap and no duplicate, even with events stored while it waited; a slow reader cut; heartbeats.
 */
import { EventEmitter } from 'node:events';
import type { Request, Response } from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { countKindOf, type CameraRulesResponse, type StoredEvent } from '@sightline/shared/events';
import { EventStore } from '../../../src/events/event-store.ts';
import { EventStream, type EventStreamOptions } from '../../../src/events/event-stream.ts';
import { createLogger } from '../../../src/logger.ts';
import { DOOR } from './crossings.ts';
import { detectionEvent } from './sample-event.ts';

class FakeResponse extends EventEmitter {
  readonly chunks: string[] = [];
  writableLength = 0;
  /** What write() answers: false says "wait for drain". */
  accepting = true;
  ended = false;
  destroyed = false;
  status = 0;
  writeHead(status: number): this {
    this.status = status;
    return this;
  }
  write(chunk: string): boolean {
    this.chunks.push(chunk);
    return this.accepting;
  }
  end(): void {
    this.ended = true;
    this.emit('close');
  }
  destroy(): void {
    this.destroyed = true;
    this.emit('close');
  }
  /** The ids of the events written, in order. */
  get ids(): number[] {
    return this.chunks.flatMap((c) => (c.startsWith('id: ') ? [Number(c.slice(4, c.indexOf('\n')))] : []));
  }
  get rules(): CameraRulesResponse[] {
    return this.chunks
      .filter((c) => c.startsWith('event: rules'))
      .map((c) => JSON.parse(c.slice(c.indexOf('data: ') + 6)) as CameraRulesResponse);
  }
}

describe('EventStream', () => {
  let store: EventStore;
  let stream: EventStream;
  const logger = createLogger('silent');
  const start = (options: Partial<EventStreamOptions> = {}) => {
    store = new EventStore(':memory:', { maxRows: 100_000 });
    stream = new EventStream({
      after: (since, limit, camera) => store.after(since, limit, camera),
      lastSeq: () => store.lastSeq,
      rules: (camera) =>
        camera === undefined || camera === 'gate' ? [{ camera: 'gate', ...DOOR, updatedAt: 1 }] : [{ camera, lines: [], zones: [] }],
      maxClients: 10,
      maxBufferedBytes: 10_000,
      heartbeatMs: 60_000,
      logger,
      replayPage: 3,
      ...options,
    });
  };
  /** Stores an event and tells the stream, as the service does. */
  const publish = (camera = 'gate'): StoredEvent => {
    const e = detectionEvent({ camera });
    const stored = store.append(e, countKindOf(e), 0);
    stream.event(stored);
    return stored;
  };
  const connect = (camera?: string, since?: number, response = new FakeResponse()) => {
    const request = new EventEmitter() as unknown as Request;
    stream.open(request, response as unknown as Response, camera, since);
    return response;
  };
  const tick = () => new Promise((resolve) => setImmediate(resolve));
  afterEach(() => {
    stream.close();
    store.close();
  });

  it('sends the rules first, then the events to come (of its camera only), each with its seq as id', () => {
    start();
    publish();
    const all = connect();
    const yard = connect('yard');
    expect(all.status).toBe(200);
    expect(all.rules).toEqual([{ camera: 'gate', ...DOOR, updatedAt: 1 }]);
    expect(yard.rules).toEqual([{ camera: 'yard', lines: [], zones: [] }]);
    publish('gate');
    publish('yard');
    expect(all.ids).toEqual([2, 3]);
    expect(yard.ids).toEqual([3]);
    const frame = all.chunks.find((c) => c.startsWith('id: 2'))!;
    expect(frame).toMatch(/^id: 2\nevent: detection-event\ndata: \{.*\}\n\n$/);
    expect((JSON.parse(frame.split('data: ')[1]!) as StoredEvent).seq).toBe(2);
  });

  it('resumes after Last-Event-ID: what was missed from the database, then live, with no gap and no duplicate', async () => {
    start();
    for (let i = 0; i < 10; i += 1) publish();
    // The replay reads a page (3) at a time; the client reads slowly: each page waits for 'drain'.
    const slow = new FakeResponse();
    slow.accepting = false;
    const client = connect(undefined, 4, slow);
    await tick();
    expect(client.ids).toEqual([5, 6, 7]);
    // Stored meanwhile: not sent live (the client has not caught up), read from the database in turn.
    publish();
    publish();
    expect(client.ids).toEqual([5, 6, 7]);
    client.accepting = true;
    client.emit('drain');
    await tick();
    client.emit('drain');
    await tick();
    expect(client.ids).toEqual([5, 6, 7, 8, 9, 10, 11, 12]);
    publish();
    expect(client.ids).toEqual([5, 6, 7, 8, 9, 10, 11, 12, 13]);
  });

  it('replays one camera only when asked to', async () => {
    start();
    for (let i = 0; i < 6; i += 1) publish(i % 2 === 0 ? 'gate' : 'yard');
    const client = connect('yard', 0);
    await tick();
    expect(client.ids).toEqual([2, 4, 6]);
    publish('yard');
    publish('gate');
    expect(client.ids).toEqual([2, 4, 6, 7]);
  });

  it('sends rules replaced to the clients of that camera', () => {
    start();
    const gate = connect('gate');
    const yard = connect('yard');
    stream.rules({ camera: 'gate', lines: [], zones: [], updatedAt: 2 });
    expect(gate.rules.at(-1)).toEqual({ camera: 'gate', lines: [], zones: [], updatedAt: 2 });
    expect(yard.rules).toHaveLength(1);
  });

  it('cuts a client that lets too many bytes wait, and keeps the others', () => {
    start({ maxBufferedBytes: 1000 });
    const slow = connect();
    const fast = connect();
    slow.writableLength = 5000;
    publish();
    expect(slow.destroyed).toBe(true);
    expect(stream.size).toBe(1);
    publish();
    expect(fast.ids).toEqual([1, 2]);
  });

  it('is full at its limit, and frees a place when a client leaves', () => {
    start({ maxClients: 2 });
    const a = connect();
    connect();
    expect(stream.full).toBe(true);
    a.emit('close');
    expect(stream.full).toBe(false);
  });

  it('sends heartbeats, and cuts a client that has read nothing for several of them', async () => {
    start({ heartbeatMs: 5 });
    const reading = connect();
    const stuck = connect();
    stuck.writableLength = 10;
    const deadline = Date.now() + 10_000;
    while (!stuck.destroyed && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(stuck.destroyed).toBe(true);
    expect(reading.chunks.filter((c) => c === ': heartbeat\n\n').length).toBeGreaterThanOrEqual(4);
    expect(reading.destroyed).toBe(false);
  });

  it('ends every stream on close and takes no more', () => {
    start();
    const client = connect();
    stream.close();
    expect(client.ended).toBe(true);
    expect(stream.full).toBe(true);
  });
});
