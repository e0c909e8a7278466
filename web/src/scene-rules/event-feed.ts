/**
 * One camera's live rules, counts and events, from the gateway: its rules (`GET`, then the SSE `rules` event
 * whenever any dashboard saves), its counts (`GET /api/cameras/NAME/counts`, then every event counted as it
 * arrives) and its events (Server-Sent Events on `/api/events/stream?camera=NAME`). Bounded: the newest
 * `maxEvents` events (newest first), `maxPoints` points of counts over time.
 *
 * Counted once: every event has a `seq`, and one already seen is not counted again. The browser's EventSource
 * resumes a dropped stream itself with `Last-Event-ID` (the gateway replays what was missed); a stream the
 * gateway ended (an error status) is opened anew after a backoff, and then what it missed is read from the
 * history (`GET /api/events?since=`) into the list, and the counts are asked for again. Counts are also asked for
 * again when the rules change (the gateway forgets the counts of rules that are gone).
 *
 * Outside React (subscribe / getState), on an injected EventSource, fetch and clock: unit-tested with fakes.
 */
import { CAMERA_QUERY_PARAM, EVENTS_STREAM_PATH } from '@sightline/shared/protocol';
import {
  CountTable,
  SSE_EVENT,
  SSE_RULES,
  type CameraCountsResponse,
  type CameraRulesResponse,
  type CountKind,
  type EventsPage,
  type RuleCount,
  type StoredEvent,
} from '@sightline/shared/events';
import { Signal } from '../events/signal.ts';
import { browserClock, type Clock, type TimerHandle } from '../time/clock.ts';
import { backoffDelay, type BackoffOptions } from '../transport/backoff.ts';
import { fetchCounts, fetchEvents, fetchRules, isCameraRules } from './rules-api.ts';
import { sameRules } from './rules-editor.ts';

/** What the feed needs of an EventSource (the browser's, or a fake). */
export interface EventSourceLike {
  readonly readyState: number;
  addEventListener(type: string, listener: (event: MessageEvent) => void): void;
  close(): void;
}

/** EventSource.CLOSED: the gateway ended the stream for good (an error status); the browser will not retry. */
const CLOSED = 2;

export type FeedStatus = 'connecting' | 'open' | 'reconnecting';

/** One point of the counts chart: when (ms since the epoch, this page's clock) and every count then. */
export interface CountsPoint {
  t: number;
  values: Readonly<Record<string, number>>;
}

export interface FeedState {
  camera: string;
  status: FeedStatus;
  /** The camera's rules as the gateway holds them; undefined until known. */
  rules: CameraRulesResponse | undefined;
  /** Per rule, kind and label, as the gateway counted them plus the events since. */
  counts: readonly RuleCount[];
  /** Tracks inside each zone now, as the enter and leave events since this page opened say. */
  inside: Readonly<Record<string, number>>;
  /** The newest events, newest first. */
  events: readonly StoredEvent[];
  /** Cumulative counts over time, one value per series (`seriesKey(rule, kind)`), oldest first. */
  points: readonly CountsPoint[];
  /** Why the feed is not live, in words (a failed request, a stream that ended). */
  problem?: string;
}

export interface EventFeedOptions {
  camera: string;
  createSource?: (url: string) => EventSourceLike;
  fetchRules?: (camera: string, signal: AbortSignal) => Promise<CameraRulesResponse>;
  fetchCounts?: (camera: string, signal: AbortSignal) => Promise<CameraCountsResponse>;
  fetchEvents?: (camera: string, since: number | undefined, limit: number, signal: AbortSignal) => Promise<EventsPage>;
  clock?: Clock;
  /** Wall clock (ms since the epoch) for the chart's points. */
  wallClock?: () => number;
  maxEvents?: number;
  maxPoints?: number;
  backoff?: BackoffOptions;
}

export const MAX_EVENTS = 200;
export const MAX_POINTS = 300;
/** Sequence numbers remembered to count an event once (far more than a resumed stream replays at once). */
const SEEN_LIMIT = 4096;
/** Tracks remembered inside a zone (a bound, not a figure ever expected). */
const INSIDE_LIMIT = 1000;
const FEED_BACKOFF: BackoffOptions = { baseMs: 1000, maxMs: 30_000, factor: 2, jitter: 0.5 };

/** The chart's key for a rule's count of a kind. */
export const seriesKey = (rule: string, kind: CountKind): string => `${rule}\u0000${kind}`;

export function streamUrl(camera: string): string {
  return `${EVENTS_STREAM_PATH}?${new URLSearchParams({ [CAMERA_QUERY_PARAM]: camera }).toString()}`;
}

/** Total of a rule's count of a kind over its labels. */
export function countOf(counts: readonly RuleCount[], rule: string, kind: CountKind): number {
  let sum = 0;
  for (const count of counts) if (count.rule === rule && count.kind === kind) sum += count.count;
  return sum;
}

function isStoredEvent(value: unknown): value is StoredEvent {
  if (!value || typeof value !== 'object') return false;
  const e = value as Record<string, unknown>;
  return typeof e.seq === 'number' && typeof e.rule === 'string' && typeof e.type === 'string' && typeof e.label === 'string';
}

function parse(data: unknown): unknown {
  try {
    return typeof data === 'string' ? JSON.parse(data) : undefined;
  } catch {
    return undefined;
  }
}

export class EventFeed {
  readonly changed = new Signal<void>();
  private readonly options: Required<EventFeedOptions>;
  private readonly clock: Clock;
  private state: FeedState;
  private readonly table = new CountTable();
  private readonly seen = new Set<number>();
  private readonly insideTracks = new Map<string, Set<number>>();
  private lastSeq: number | undefined;
  private source: EventSourceLike | undefined;
  private running = false;
  private attempts = 0;
  private retryTimer: TimerHandle | undefined;
  /** The stream was opened anew (not resumed by the browser): what it missed is read from the history. */
  private reopened = false;
  private countsLoaded = false;
  private countsGeneration = 0;
  private readonly requests = new Set<AbortController>();

  constructor(options: EventFeedOptions) {
    this.options = {
      createSource: (url) => new EventSource(url),
      fetchRules: (camera, signal) => fetchRules(camera, signal),
      fetchCounts: (camera, signal) => fetchCounts(camera, signal),
      fetchEvents: (camera, since, limit, signal) => fetchEvents(camera, since, limit, signal),
      clock: browserClock,
      wallClock: () => Date.now(),
      maxEvents: MAX_EVENTS,
      maxPoints: MAX_POINTS,
      backoff: FEED_BACKOFF,
      ...options,
    };
    this.clock = this.options.clock;
    this.state = { camera: options.camera, status: 'connecting', rules: undefined, counts: [], inside: {}, events: [], points: [] };
  }

  get camera(): string {
    return this.options.camera;
  }

  readonly getState = (): FeedState => this.state;

  readonly subscribe = (listener: () => void): (() => void) => this.changed.subscribe(listener);

  start(): void {
    if (this.running) return;
    this.running = true;
    this.open();
    void this.loadRules();
    void this.refreshCounts();
  }

  stop(): void {
    this.running = false;
    this.clock.clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.source?.close();
    this.source = undefined;
    for (const request of this.requests) request.abort();
    this.requests.clear();
  }

  /** Rules the gateway answered a save with: shown at once (its SSE `rules` event follows). */
  rulesSaved(rules: CameraRulesResponse): void {
    this.applyRules(rules);
  }

  private open(): void {
    if (!this.running) return;
    const source = this.options.createSource(streamUrl(this.options.camera));
    this.source = source;
    source.addEventListener('open', () => {
      if (this.source !== source) return;
      this.attempts = 0;
      this.update({ status: 'open', problem: undefined });
      if (this.reopened) {
        this.reopened = false;
        void this.backfill();
        void this.refreshCounts();
      }
    });
    source.addEventListener('error', () => {
      if (this.source !== source) return;
      if (source.readyState !== CLOSED) {
        // The browser reconnects by itself and resumes with Last-Event-ID.
        this.update({ status: 'reconnecting' });
        return;
      }
      source.close();
      this.source = undefined;
      const delay = backoffDelay(this.attempts++, this.options.backoff);
      this.update({ status: 'reconnecting', problem: `The event stream ended; trying again in ${Math.ceil(delay / 1000)} s.` });
      this.reopened = true;
      this.retryTimer = this.clock.setTimeout(() => this.open(), delay);
    });
    source.addEventListener(SSE_RULES, (event) => {
      if (this.source !== source) return;
      const rules = parse(event.data);
      if (isCameraRules(rules)) this.applyRules({ camera: this.options.camera, ...rules });
    });
    source.addEventListener(SSE_EVENT, (event) => {
      if (this.source !== source) return;
      const stored = parse(event.data);
      if (isStoredEvent(stored) && this.take([stored], true)) this.emit();
    });
  }

  private async request<T>(run: (signal: AbortSignal) => Promise<T>): Promise<T | undefined> {
    const controller = new AbortController();
    this.requests.add(controller);
    try {
      return await run(controller.signal);
    } catch (error) {
      if (!controller.signal.aborted && this.running) this.update({ problem: error instanceof Error ? error.message : String(error) });
      return undefined;
    } finally {
      this.requests.delete(controller);
    }
  }

  private async loadRules(): Promise<void> {
    const rules = await this.request((signal) => this.options.fetchRules(this.options.camera, signal));
    // The stream's `rules` event may have come first: a newer one is kept.
    if (rules && this.running && !this.state.rules) this.applyRules(rules);
  }

  private applyRules(rules: CameraRulesResponse): void {
    const previous = this.state.rules;
    if (previous?.updatedAt !== undefined && rules.updatedAt !== undefined && rules.updatedAt < previous.updatedAt) return;
    const changed = !previous || !sameRules(previous, rules);
    this.update({ rules });
    // Replaced rules start their counts afresh at the gateway: ask it.
    if (changed && this.countsLoaded) void this.refreshCounts();
  }

  private async refreshCounts(): Promise<void> {
    const generation = ++this.countsGeneration;
    const answer = await this.request((signal) => this.options.fetchCounts(this.options.camera, signal));
    if (!answer || generation !== this.countsGeneration || !this.running) return;
    // The gateway stores an event before it publishes it: one that arrived meanwhile is in these counts.
    this.table.clear();
    for (const count of answer.counts) this.table.increment(count.rule, count.kind, count.label, count.count);
    this.countsLoaded = true;
    this.addPoint();
    this.emit();
  }

  /** After a stream opened anew: the events it missed, into the list (the counts are asked for again). */
  private async backfill(): Promise<void> {
    const since = this.lastSeq;
    if (since === undefined) return;
    const page = await this.request((signal) => this.options.fetchEvents(this.options.camera, since, this.options.maxEvents, signal));
    if (page && this.running && this.take(page.events.filter(isStoredEvent), false)) this.emit();
  }

  /** Events into the list (once each), counted when `count`; whether anything changed. */
  private take(incoming: readonly StoredEvent[], count: boolean): boolean {
    const fresh = incoming.filter((event) => (event.camera ?? this.options.camera) === this.options.camera && !this.seen.has(event.seq));
    if (fresh.length === 0) return false;
    for (const event of fresh) {
      this.seen.add(event.seq);
      if (this.seen.size > SEEN_LIMIT) this.seen.delete(this.seen.values().next().value!);
      this.lastSeq = Math.max(this.lastSeq ?? event.seq, event.seq);
      if (count) this.table.add(event);
      this.followZone(event);
    }
    const events = [...fresh, ...this.state.events].sort((a, b) => b.seq - a.seq).slice(0, this.options.maxEvents);
    this.state = { ...this.state, events, inside: this.insideCounts() };
    if (count) this.addPoint();
    return true;
  }

  private followZone(event: StoredEvent): void {
    if (event.type === 'line_cross') return;
    let tracks = this.insideTracks.get(event.rule);
    if (!tracks) this.insideTracks.set(event.rule, (tracks = new Set()));
    if (event.type === 'zone_enter') {
      tracks.add(event.trackId);
      if (tracks.size > INSIDE_LIMIT) tracks.delete(tracks.values().next().value!);
    } else tracks.delete(event.trackId);
  }

  private insideCounts(): Record<string, number> {
    return Object.fromEntries([...this.insideTracks].map(([zone, tracks]) => [zone, tracks.size]));
  }

  private addPoint(): void {
    const values: Record<string, number> = {};
    for (const count of this.table.list()) {
      const key = seriesKey(count.rule, count.kind);
      values[key] = (values[key] ?? 0) + count.count;
    }
    const points = [...this.state.points, { t: this.options.wallClock(), values }].slice(-this.options.maxPoints);
    this.state = { ...this.state, counts: this.table.list(), points };
  }

  private update(patch: Partial<FeedState>): void {
    this.state = { ...this.state, ...patch };
    this.emit();
  }

  private emit(): void {
    this.changed.emit();
  }
}
