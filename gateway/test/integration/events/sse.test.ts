/**
 * The event stream over real HTTP: rules first, then each event with its seq as id; a client that drops and
 * comes back with Last-Event-ID (what EventSource sends) gets what it missed from the database, then the events
 * that follow, none twice and none missing; `?since=` does the same for a first connection; the stream ends on
 * a drain.
 */
import { request, type IncomingMessage } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SSE_EVENT, SSE_RULES, type CameraRulesResponse, type StoredEvent } from '@sightline/shared/events';
import { EVENTS_STREAM_PATH } from '@sightline/shared/protocol';
import { CrossingFeed, DOOR } from '../../unit/events/crossings.ts';
import { startEventsService, until, type RunningEvents } from './harness.ts';

interface SseMessage {
  event: string;
  id?: string;
  data: string;
}

/** A Server-Sent Events client: the messages as they come, parsed by the format's rules. */
class SseClient {
  readonly messages: SseMessage[] = [];
  ended = false;
  private buffer = '';
  private readonly response: IncomingMessage;

  private constructor(response: IncomingMessage) {
    this.response = response;
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => this.take(chunk));
    response.on('end', () => (this.ended = true));
    response.on('close', () => (this.ended = true));
  }

  static open(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
    return new Promise((resolve, reject) => {
      const req = request(url, { headers: { Accept: 'text/event-stream', ...headers } }, (response) => {
        if (response.statusCode !== 200) reject(new Error(`status ${response.statusCode}`));
        expect(response.headers['content-type']).toMatch(/^text\/event-stream/);
        resolve(new SseClient(response));
      });
      req.on('error', reject);
      req.end();
    });
  }

  get events(): StoredEvent[] {
    return this.messages.filter((m) => m.event === SSE_EVENT).map((m) => JSON.parse(m.data) as StoredEvent);
  }

  get rules(): CameraRulesResponse[] {
    return this.messages.filter((m) => m.event === SSE_RULES).map((m) => JSON.parse(m.data) as CameraRulesResponse);
  }

  /** The id of the last event: what EventSource would send as Last-Event-ID. */
  get lastEventId(): string | undefined {
    return this.messages.findLast((m) => m.id !== undefined)?.id;
  }

  close(): void {
    this.response.destroy();
  }

  private take(chunk: string): void {
    this.buffer += chunk;
    let end: number;
    while ((end = this.buffer.indexOf('\n\n')) >= 0) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const message: SseMessage = { event: 'message', data: '' };
      let data: string[] | undefined;
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') message.event = value;
        else if (field === 'id') message.id = value;
        else if (field === 'data') (data ??= []).push(value);
      }
      if (data === undefined) continue;
      message.data = data.join('\n');
      this.messages.push(message);
    }
  }
}

describe('event stream (SSE over HTTP)', () => {
  let dataDir: string;
  let s: RunningEvents;
  const clients: SseClient[] = [];
  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'sightline-events-sse-'));
    s = await startEventsService({ dataDir });
    await s.putRules('gate', DOOR);
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) client.close();
    await s.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const open = async (query = '', headers: Record<string, string> = {}) => {
    const client = await SseClient.open(`${s.url}${EVENTS_STREAM_PATH}${query}`, headers);
    clients.push(client);
    return client;
  };

  it('resumes with Last-Event-ID: the missed events from the history, then live, none twice, none missing', async () => {
    const feed = new CrossingFeed(s.events.consumer, 'gate', 1);
    feed.crossMany(2);
    const first = await open();
    await until(() => first.rules.length === 1, 'the rules');
    expect(first.rules[0]).toMatchObject({ camera: 'gate', ...DOOR });
    feed.crossMany(3);
    await until(() => first.events.length === 3, 'three live events');
    expect(first.events.map((e) => e.seq)).toEqual([3, 4, 5]);
    expect(first.lastEventId).toBe('5');
    first.close();

    feed.crossMany(4);
    const resumed = await open('', { 'Last-Event-ID': first.lastEventId! });
    await until(() => resumed.events.length === 4, 'the four missed');
    feed.crossMany(2);
    await until(() => resumed.events.length === 6, 'the two that followed');
    expect(resumed.events.map((e) => e.seq)).toEqual([6, 7, 8, 9, 10, 11]);
    expect(resumed.events.map((e) => e.id)).toEqual(s.events.store.after(5, 100).map((e) => e.id));
    // Each message's id is the event's seq.
    expect(resumed.messages.filter((m) => m.event === SSE_EVENT).map((m) => Number(m.id))).toEqual([6, 7, 8, 9, 10, 11]);
  });

  it('replays from ?since= on a first connection, for one camera when asked', async () => {
    await s.putRules('yard', DOOR);
    new CrossingFeed(s.events.consumer, 'gate', 1).crossMany(3);
    new CrossingFeed(s.events.consumer, 'yard', 2).crossMany(2);
    const yard = await open('?camera=yard&since=0');
    await until(() => yard.events.length === 2, 'the yard events');
    expect(yard.rules.map((r) => r.camera)).toEqual(['yard']);
    const all = await open('?since=1');
    await until(() => all.events.length === 4, 'everything after 1');
    expect(all.events.map((e) => e.seq)).toEqual([2, 3, 4, 5]);
    expect(all.rules.map((r) => r.camera)).toEqual(['gate', 'yard']);
  });

  it('ends the streams on a drain', async () => {
    const client = await open();
    await until(() => client.rules.length === 1, 'the rules');
    s.events.closeStreams();
    await until(() => client.ended, 'the stream ended');
  });
});
