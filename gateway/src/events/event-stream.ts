/**
 * Server-Sent Events of the event history (GET EVENTS_STREAM_PATH, `?camera=` for one camera):
 *
 *   event: rules             on connection, each camera's current rules (CameraRulesResponse), and again whenever
 *   data: {...}              they are replaced; no `id:`, so Last-Event-ID keeps naming the last event
 *
 *   id: 42                   each event (a StoredEvent), `id:` its seq
 *   event: detection-event
 *   data: {...}
 *
 *   : heartbeat              a comment every `heartbeatMs`, so proxies and clients know the stream is alive
 *
 * Resumable: `Last-Event-ID` (what a browser's EventSource sends when it reconnects) or `?since=` starts after that
 * seq, from the database: missed events first, then live ones, with no gap and no duplicate (a client's cursor is
 * the last seq it was sent; it reads the database until it has caught up, and only then takes live events, whose
 * seqs follow). Bounded: at most `maxClients` streams; a client that reads slower than events come is cut once
 * `maxBufferedBytes` wait for it (a replay waits for the client instead, a page at a time), and so is one that
 * has read nothing for a few heartbeats.
 */
import type { Request, Response } from 'express';
import { SSE_EVENT, SSE_RULES, type CameraRulesResponse, type StoredEvent } from '@sightline/shared/events';
import type { Logger } from '../logger.ts';

export interface EventStreamOptions {
  /** Events after `since`, oldest first (the database). */
  after(since: number, limit: number, camera?: string): StoredEvent[];
  /** The seq of the newest event stored. */
  lastSeq(): number;
  /** The rules of one camera, or of every camera with rules. */
  rules(camera?: string): CameraRulesResponse[];
  maxClients: number;
  maxBufferedBytes: number;
  heartbeatMs: number;
  logger: Logger;
  /** Told how many clients are connected. */
  onClients?: (count: number) => void;
  /** Events read from the database per page of a replay. */
  replayPage?: number;
}

interface Client {
  response: Response;
  camera: string | undefined;
  /** The seq of the last event this client was sent (or chose to start after). */
  cursor: number;
  /** Whether it has caught up with the database and takes events as they come. */
  live: boolean;
  closed: boolean;
  /** Heartbeats in a row that found bytes still waiting for the client. */
  stalled: number;
}

const REPLAY_PAGE = 200;
/** A client with bytes waiting at this many heartbeats in a row (a minute by default) has stopped reading: cut. */
const STALLED_BEATS = 4;

export class EventStream {
  private readonly clients = new Set<Client>();
  private readonly heartbeat: ReturnType<typeof setInterval>;
  private closed = false;

  private readonly options: EventStreamOptions;

  constructor(options: EventStreamOptions) {
    this.options = options;
    this.heartbeat = setInterval(() => this.beat(), options.heartbeatMs);
    this.heartbeat.unref();
  }

  get size(): number {
    return this.clients.size;
  }

  /** Whether another client may connect now. */
  get full(): boolean {
    return this.closed || this.clients.size >= this.options.maxClients;
  }

  /**
   * Serves one client (the caller checked `full` and the query): the rules, then the events after `since` (or
   * the events to come, without one) until the client leaves or the stream closes.
   */
  open(request: Request, response: Response, camera: string | undefined, since: number | undefined): void {
    // An id past the newest event (a database replaced since) resumes from the newest: nothing to come is skipped.
    const cursor = Math.min(since ?? Number.MAX_SAFE_INTEGER, this.options.lastSeq());
    const client: Client = { response, camera, cursor, live: false, closed: false, stalled: 0 };
    this.clients.add(client);
    this.options.onClients?.(this.clients.size);
    const leave = () => this.remove(client);
    request.on('close', leave);
    response.on('close', leave);
    response.on('error', leave);

    response.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      // nginx and some other proxies buffer responses unless told not to.
      'X-Accel-Buffering': 'no',
    });
    // How long a browser waits before reconnecting (with Last-Event-ID).
    response.write('retry: 2000\n\n');
    for (const rules of this.options.rules(camera)) response.write(rulesFrame(rules));
    if (since === undefined) client.live = true;
    else void this.replay(client);
  }

  /** A new event, stored: sent to every live client that takes its camera. */
  event(event: StoredEvent): void {
    for (const client of this.clients) {
      if (!client.live || event.seq <= client.cursor) continue;
      if (client.camera !== undefined && client.camera !== event.camera) continue;
      client.cursor = event.seq;
      this.write(client, eventFrame(event));
    }
  }

  /** A camera's rules were replaced. */
  rules(rules: CameraRulesResponse): void {
    for (const client of this.clients) {
      if (client.camera !== undefined && client.camera !== rules.camera) continue;
      this.write(client, rulesFrame(rules));
    }
  }

  /** Ends every stream (a drain): a browser reconnects, to another gateway or to this one once back, and resumes. */
  close(): void {
    this.closed = true;
    clearInterval(this.heartbeat);
    for (const client of [...this.clients]) {
      client.response.end();
      this.remove(client);
    }
  }

  /** Sends what the client missed from the database, a page at a time, waiting for it to read each; then live. */
  private async replay(client: Client): Promise<void> {
    const page = this.options.replayPage ?? REPLAY_PAGE;
    while (!client.closed) {
      let events: StoredEvent[];
      try {
        events = this.options.after(client.cursor, page, client.camera);
      } catch (error) {
        this.options.logger.error({ err: error }, 'event stream: the history could not be read; closing the stream');
        client.response.end();
        this.remove(client);
        return;
      }
      let open = true;
      for (const event of events) {
        client.cursor = event.seq;
        open = client.response.write(eventFrame(event));
      }
      // Caught up: from here on live events follow the cursor (nothing can be stored between that read and this).
      if (events.length < page) {
        client.live = true;
        return;
      }
      if (!open) await drained(client.response);
    }
  }

  private write(client: Client, frame: string): void {
    if (client.closed) return;
    client.response.write(frame);
    if (client.response.writableLength > this.options.maxBufferedBytes) {
      this.options.logger.info({ buffered: client.response.writableLength }, 'event stream: client reads too slowly; closing its stream');
      client.response.destroy();
      this.remove(client);
    }
  }

  private beat(): void {
    for (const client of [...this.clients]) {
      client.stalled = client.response.writableLength > 0 ? client.stalled + 1 : 0;
      if (client.stalled >= STALLED_BEATS) {
        this.options.logger.info({ buffered: client.response.writableLength }, 'event stream: client stopped reading; closing its stream');
        client.response.destroy();
        this.remove(client);
      } else this.write(client, ': heartbeat\n\n');
    }
  }

  private remove(client: Client): void {
    if (client.closed) return;
    client.closed = true;
    this.clients.delete(client);
    this.options.onClients?.(this.clients.size);
  }
}

export function eventFrame(event: StoredEvent): string {
  return `id: ${event.seq}\nevent: ${SSE_EVENT}\ndata: ${JSON.stringify(event)}\n\n`;
}

export function rulesFrame(rules: CameraRulesResponse): string {
  return `event: ${SSE_RULES}\ndata: ${JSON.stringify(rules)}\n\n`;
}

/** Resolves when `response` can take more, or has closed. */
function drained(response: Response): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
  });
}
