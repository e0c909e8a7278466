import { describe, expect, it } from 'vitest';
import type { CameraCountsResponse, CameraRulesResponse, EventsPage, StoredEvent } from '@sightline/shared/events';
import { countOf, EventFeed, seriesKey, streamUrl, type EventSourceLike } from '../../../src/scene-rules/event-feed.ts';
import { FakeClock } from '../../support/fake-clock.ts';

class FakeSource implements EventSourceLike {
  static all: FakeSource[] = [];
  readyState = 0;
  closed = false;
  private readonly listeners = new Map<string, ((event: MessageEvent) => void)[]>();
  constructor(readonly url: string) {
    FakeSource.all.push(this);
  }
  addEventListener(type: string, listener: (event: MessageEvent) => void): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }
  close(): void {
    this.closed = true;
    this.readyState = 2;
  }
  fire(type: string, data?: unknown): void {
    if (type === 'open') this.readyState = 1;
    const event = { data: data === undefined ? undefined : JSON.stringify(data) } as MessageEvent;
    for (const listener of this.listeners.get(type) ?? []) listener(event);
  }
  /** The browser lost the stream and reconnects by itself (readyState CONNECTING), or the gateway ended it (CLOSED). */
  fail(closed: boolean): void {
    this.readyState = closed ? 2 : 0;
    this.fire('error');
  }
}

const camera = 'door';
const door: CameraRulesResponse = { camera, updatedAt: 1, lines: [{ name: 'door', from: [0.5, 0], to: [0.5, 1] }], zones: [] };

let nextSeq = 1;
function crossing(direction: 'in' | 'out', extra: Partial<StoredEvent> = {}): StoredEvent {
  const seq = nextSeq++;
  return {
    id: `e${seq}`,
    seq,
    camera,
    rule: 'door',
    type: 'line_cross',
    direction,
    trackId: 7,
    label: 'person',
    score: 0.9,
    box: [0, 0, 10, 10],
    capturedAt: 1000 + seq,
    detectedAt: 1010 + seq,
    ...extra,
  };
}

const settle = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

function setup(options: { counts?: CameraCountsResponse; history?: EventsPage; maxEvents?: number } = {}) {
  FakeSource.all = [];
  const clock = new FakeClock(0);
  const calls: string[] = [];
  let counts = options.counts ?? { camera, counts: [] };
  const feed = new EventFeed({
    camera,
    clock,
    wallClock: () => 1_700_000_000_000 + clock.now(),
    createSource: (url) => new FakeSource(url),
    fetchRules: async () => {
      calls.push('rules');
      return door;
    },
    fetchCounts: async () => {
      calls.push('counts');
      return counts;
    },
    fetchEvents: async (_camera, since) => {
      calls.push(`events since ${since}`);
      return options.history ?? { events: [] };
    },
    ...(options.maxEvents ? { maxEvents: options.maxEvents } : {}),
  });
  let changes = 0;
  feed.subscribe(() => changes++);
  return {
    feed,
    clock,
    calls,
    source: () => FakeSource.all.at(-1)!,
    changes: () => changes,
    serveCounts: (next: CameraCountsResponse) => (counts = next),
  };
}

describe('EventFeed', () => {
  it('listens to the camera’s stream, reads its rules and counts, and counts each event as it arrives', async () => {
    const h = setup({ counts: { camera, counts: [{ rule: 'door', kind: 'in', label: 'person', count: 4 }] } });
    h.feed.start();
    expect(h.source().url).toBe(streamUrl(camera));
    expect(streamUrl('a.b')).toBe('/api/events/stream?camera=a.b');
    await settle();
    h.source().fire('open');
    h.source().fire('rules', door);
    expect(h.feed.getState()).toMatchObject({ status: 'open', rules: door });
    expect(countOf(h.feed.getState().counts, 'door', 'in')).toBe(4);
    h.source().fire('detection-event', crossing('in'));
    h.source().fire('detection-event', crossing('out', { label: 'cat' }));
    const state = h.feed.getState();
    expect(countOf(state.counts, 'door', 'in')).toBe(5);
    expect(countOf(state.counts, 'door', 'out')).toBe(1);
    // Newest first.
    expect(state.events.map((event) => event.direction)).toEqual(['out', 'in']);
    // One point when the counts came, one per event: cumulative.
    expect(state.points.map((point) => point.values[seriesKey('door', 'in')])).toEqual([4, 5, 5]);
    h.feed.stop();
    expect(h.source().closed).toBe(true);
  });

  it('counts an event once, however often it comes (a replay after a resume)', async () => {
    const h = setup();
    h.feed.start();
    await settle();
    const event = crossing('in');
    h.source().fire('detection-event', event);
    h.source().fire('detection-event', event);
    expect(countOf(h.feed.getState().counts, 'door', 'in')).toBe(1);
    expect(h.feed.getState().events).toHaveLength(1);
  });

  it('keeps the newest events only', async () => {
    const h = setup({ maxEvents: 3 });
    h.feed.start();
    await settle();
    const events = [1, 2, 3, 4, 5].map(() => crossing('in'));
    for (const event of events) h.source().fire('detection-event', event);
    expect(h.feed.getState().events.map((event) => event.seq)).toEqual([events[4]!.seq, events[3]!.seq, events[2]!.seq]);
    expect(countOf(h.feed.getState().counts, 'door', 'in')).toBe(5);
  });

  it('follows tracks into and out of zones', async () => {
    const h = setup();
    h.feed.start();
    await settle();
    const zone = { rule: 'yard', direction: undefined };
    h.source().fire('detection-event', crossing('in', { ...zone, type: 'zone_enter', trackId: 1 }));
    h.source().fire('detection-event', crossing('in', { ...zone, type: 'zone_enter', trackId: 2 }));
    h.source().fire('detection-event', crossing('in', { ...zone, type: 'zone_leave', trackId: 1 }));
    const state = h.feed.getState();
    expect(state.inside).toEqual({ yard: 1 });
    expect(countOf(state.counts, 'yard', 'enter')).toBe(2);
    expect(countOf(state.counts, 'yard', 'leave')).toBe(1);
  });

  it('asks for the counts again when the rules change, not when the same rules come again', async () => {
    const h = setup();
    h.feed.start();
    await settle();
    expect(h.calls.filter((call) => call === 'counts')).toHaveLength(1);
    h.source().fire('rules', door);
    await settle();
    expect(h.calls.filter((call) => call === 'counts')).toHaveLength(1);
    h.serveCounts({ camera, counts: [] });
    h.source().fire('rules', { ...door, updatedAt: 2, lines: [{ name: 'gate', from: [0, 0.5], to: [1, 0.5] }] });
    await settle();
    expect(h.calls.filter((call) => call === 'counts')).toHaveLength(2);
    expect(h.feed.getState().rules?.lines[0]!.name).toBe('gate');
    // Older rules (an answer overtaken by a newer event) are not taken back.
    h.feed.rulesSaved({ ...door, updatedAt: 1 });
    expect(h.feed.getState().rules?.lines[0]!.name).toBe('gate');
  });

  it('leaves a dropped stream to the browser, and opens one the gateway ended again after a backoff, reading what it missed', async () => {
    const seen = crossing('in');
    const missed = crossing('out');
    // The history answers from `since` on: the one seen again, and the one missed.
    const h = setup({ history: { events: [seen, missed] } });
    h.feed.start();
    await settle();
    h.source().fire('open');
    h.source().fire('detection-event', seen);
    h.source().fail(false);
    expect(h.feed.getState().status).toBe('reconnecting');
    expect(FakeSource.all).toHaveLength(1);
    h.source().fire('open');
    h.source().fail(true);
    expect(h.source().closed).toBe(true);
    expect(h.feed.getState().problem).toMatch(/event stream ended/);
    h.clock.advance(30_000);
    expect(FakeSource.all).toHaveLength(2);
    h.source().fire('open');
    await settle();
    expect(h.calls).toContain(`events since ${seen.seq}`);
    expect(h.feed.getState().events.map((event) => event.seq)).toEqual([missed.seq, seen.seq]);
    expect(h.feed.getState().status).toBe('open');
    expect(h.feed.getState().problem).toBeUndefined();
    // The counts are the gateway's again, asked for on the new stream (the missed event is in them).
    expect(h.calls.filter((call) => call === 'counts')).toHaveLength(2);
  });

  it('ignores what is not an event of this camera', async () => {
    const h = setup();
    h.feed.start();
    await settle();
    h.source().fire('detection-event', crossing('in', { camera: 'other' }));
    h.source().fire('detection-event', { nonsense: true });
    h.source().fire('rules', { lines: 'no' });
    expect(h.feed.getState().events).toEqual([]);
  });
});
