import { describe, expect, it } from 'vitest';
import { decodeClientMessage, type WireData } from '@sightline/shared/codec';
import type { Codec } from '@sightline/shared/protocol';
import { PingClock } from '../../../src/app/ping-clock.ts';
import { PING_INTERVAL_MS, PONG_WAIT_MS } from '../../../src/app/ping-schedule.ts';
import { FakeClock } from '../../support/fake-clock.ts';

function setup(start = 0) {
  const clock = new FakeClock(start);
  const sent: { at: number; data: WireData }[] = [];
  const link = {
    isOpen: true,
    send: (data: WireData) => {
      sent.push({ at: clock.now(), data });
      return true;
    },
  };
  let id = 0;
  let codec: Codec = 'msgpack';
  let windowChanges = 0;
  const pings = new PingClock({ clock, link, nextId: () => ++id, codec: () => codec });
  pings.windowChanged.subscribe(() => windowChanges++);
  return {
    clock,
    link,
    pings,
    sent,
    decoded: () => sent.map(({ data }) => decodeClientMessage(data, typeof data === 'string' ? 'json' : 'msgpack')),
    setCodec: (next: Codec) => (codec = next),
    windowChanges: () => windowChanges,
  };
}

describe('PingClock', () => {
  it('pings once a second on a fixed grid, in the chosen codec, with fresh message ids', () => {
    const h = setup(100);
    h.pings.start();
    expect(h.pings.window.nextPingAt).toBe(1100);
    h.clock.advance(999);
    expect(h.sent).toHaveLength(0);
    h.clock.advance(1);
    h.setCodec('json');
    h.clock.advance(2000);
    expect(h.sent.map((ping) => ping.at)).toEqual([1100, 2100, 3100]);
    expect(h.sent.map((ping) => typeof ping.data)).toEqual(['object', 'string', 'string']);
    expect(h.decoded()).toEqual([
      { type: 'ping', id: 1, ts: 1100 },
      { type: 'ping', id: 2, ts: 2100 },
      { type: 'ping', id: 3, ts: 3100 },
    ]);
  });

  it('skips beats missed while the page was throttled instead of firing them in a burst', () => {
    const h = setup();
    h.pings.start();
    h.clock.advance(1000); // ping at 1000, next due at 2000
    h.clock.jump(3500); // a background tab: the 2000 timer fires only at 4500
    h.clock.advance(0);
    expect(h.sent.map((ping) => ping.at)).toEqual([1000, 4500]);
    // The grid restarts from the late beat, not from 3000 or 5000 (which would fire at once or twice).
    expect(h.pings.window.nextPingAt).toBe(4500 + PING_INTERVAL_MS);
    h.clock.advance(999);
    expect(h.sent).toHaveLength(2);
  });

  it('keeps the grid when a beat is only a little late', () => {
    const h = setup();
    h.pings.start();
    h.clock.jump(1030);
    h.clock.advance(0);
    expect(h.pings.window.nextPingAt).toBe(2000);
  });

  it('awaits the pong for at most PONG_WAIT_MS, and stops awaiting it once it is in', () => {
    const h = setup();
    h.pings.start();
    const changesAfterStart = h.windowChanges();
    expect(changesAfterStart).toBe(1);
    h.clock.advance(1000);
    expect(h.pings.window).toEqual({ nextPingAt: 2000, pongAwaitedUntil: 1000 + PONG_WAIT_MS });
    // Scheduling the next ping moved the window: whoever keeps out of it was told.
    expect(h.windowChanges()).toBe(changesAfterStart + 1);
    h.pings.pongArrived();
    expect(h.pings.window.pongAwaitedUntil).toBe(0);
    expect(h.windowChanges()).toBe(changesAfterStart + 2);
  });

  it('sends nothing and awaits nothing while the socket is not open, but keeps its grid', () => {
    const h = setup();
    h.link.isOpen = false;
    h.pings.start();
    h.clock.advance(2000);
    expect(h.sent).toHaveLength(0);
    expect(h.pings.window).toEqual({ nextPingAt: 3000, pongAwaitedUntil: 0 });
    h.link.isOpen = true;
    h.clock.advance(1000);
    expect(h.sent.map((ping) => ping.at)).toEqual([3000]);
  });

  it('stops pinging on stop, and starts a fresh grid on a restart', () => {
    const h = setup();
    h.pings.start();
    h.clock.advance(1000);
    h.pings.stop();
    expect(h.pings.window.nextPingAt).toBeUndefined();
    expect(h.clock.timerCount).toBe(0);
    h.clock.advance(5000);
    expect(h.sent).toHaveLength(1);
    h.pings.start();
    h.clock.advance(1000);
    expect(h.sent.map((ping) => ping.at)).toEqual([1000, 7000]);
  });
});
