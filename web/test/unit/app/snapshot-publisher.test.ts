import { describe, expect, it } from 'vitest';
import { PING_GUARD_MS, PONG_WAIT_MS, type PingWindow } from '../../../src/app/ping-schedule.ts';
import { SnapshotPublisher } from '../../../src/app/snapshot-publisher.ts';
import { Signal } from '../../../src/events/signal.ts';
import { FakeClock } from '../../support/fake-clock.ts';

function setup(start = 10_000) {
  const clock = new FakeClock(start);
  let builds = 0;
  const window: PingWindow = { nextPingAt: undefined, pongAwaitedUntil: 0 };
  const pingWindowChanged = new Signal<void>();
  const publisher = new SnapshotPublisher({ build: () => ++builds, clock, pingWindow: () => window, pingWindowChanged });
  const published: number[] = [];
  publisher.subscribe(() => published.push(clock.now()));
  return { clock, window, pingWindowChanged, publisher, published, builds: () => builds };
}

describe('SnapshotPublisher', () => {
  it('builds the first snapshot at once and keeps handing out the same one until it publishes', () => {
    const h = setup();
    expect(h.publisher.getSnapshot()).toBe(1);
    h.publisher.invalidate();
    expect(h.publisher.getSnapshot()).toBe(1);
    h.clock.advance(0);
    expect(h.publisher.getSnapshot()).toBe(2);
    expect(h.published).toHaveLength(1);
  });

  it('coalesces the stream of answers into at most one rebuild per interval', () => {
    const h = setup();
    for (let t = 0; t < 990; t += 10) {
      h.publisher.invalidate();
      h.clock.advance(10);
    }
    expect(h.published).toEqual([10_000, 10_250, 10_500, 10_750]);
    expect(h.builds()).toBe(1 + 4);
  });

  it('publishes an urgent change on the next tick, even right after a rebuild', () => {
    const h = setup();
    h.publisher.invalidate();
    h.clock.advance(0);
    h.publisher.invalidate(true);
    h.clock.advance(0);
    expect(h.published).toEqual([10_000, 10_000]);
  });

  it('never publishes in the guard window before a ping or while its pong is awaited unless urgent', () => {
    const h = setup();
    h.window.nextPingAt = 10_100;
    h.publisher.invalidate();
    h.clock.advance(0); // 10 000 is before the guard window, which starts at 10 100 - PING_GUARD_MS
    h.clock.advance(100);
    h.publisher.invalidate(); // throttled to 10 250: inside the ping's window, so moved to its end
    h.clock.advance(2000);
    expect(h.published).toEqual([10_000, 10_100 + PONG_WAIT_MS]);
    for (const at of h.published) expect(at < 10_100 - PING_GUARD_MS || at >= 10_100 + PONG_WAIT_MS).toBe(true);

    // A pong still awaited holds a rebuild back until the wait ends...
    h.window.nextPingAt = 20_000;
    h.window.pongAwaitedUntil = h.clock.now() + 200;
    const waitEnds = h.window.pongAwaitedUntil;
    h.publisher.invalidate();
    h.clock.advance(1000);
    expect(h.published.at(-1)).toBe(waitEnds);

    // ...but an urgent change (an error, a status change, a click) goes at once.
    h.window.pongAwaitedUntil = h.clock.now() + 200;
    h.publisher.invalidate(true);
    h.clock.advance(0);
    expect(h.published.at(-1)).toBe(h.clock.now());
  });

  it('moves a pending rebuild out of a ping window announced after it was scheduled', () => {
    const h = setup();
    h.publisher.invalidate();
    h.clock.advance(0);
    h.publisher.invalidate(); // due at 10 250
    h.window.nextPingAt = 10_260;
    h.pingWindowChanged.emit();
    h.clock.advance(1000);
    expect(h.published).toEqual([10_000, 10_260 + PONG_WAIT_MS]);
  });

  it('checks the window again when the rebuild is due, even without a reschedule', () => {
    const h = setup();
    h.publisher.invalidate();
    h.clock.advance(0);
    h.publisher.invalidate(); // due at 10 250
    h.window.pongAwaitedUntil = 10_400; // a pong is late and nobody said so
    h.clock.advance(1000);
    expect(h.published).toEqual([10_000, 10_400]);
  });

  it('leaves an urgent rebuild alone when the ping window moves', () => {
    const h = setup();
    h.publisher.invalidate(true);
    h.window.nextPingAt = 10_010;
    h.publisher.reschedule();
    h.clock.advance(0);
    expect(h.published).toEqual([10_000]);
  });

  it('drops the pending rebuild on stop, and schedules again after a restart (StrictMode remount)', () => {
    const h = setup();
    h.publisher.invalidate(true);
    h.publisher.stop();
    h.clock.advance(1000);
    expect(h.published).toEqual([]);
    h.publisher.invalidate();
    h.clock.advance(0);
    expect(h.published).toEqual([11_000]);
  });

  it('rebuilds when what it watches changes: at once or with the stream, as the change says', () => {
    const h = setup();
    const status = new Signal<string>();
    const progress = new Signal<{ statusChanged: boolean }>();
    h.publisher.watch(status, true);
    const unwatch = h.publisher.watch(progress, (change) => change.statusChanged);
    h.publisher.invalidate();
    h.clock.advance(0);
    progress.emit({ statusChanged: false }); // with the stream: 250 ms after the last rebuild
    h.clock.advance(100);
    expect(h.published).toEqual([10_000]);
    progress.emit({ statusChanged: true });
    h.clock.advance(0);
    status.emit('open');
    h.clock.advance(0);
    expect(h.published).toEqual([10_000, 10_100, 10_100]);
    unwatch();
    progress.emit({ statusChanged: true });
    h.clock.advance(1000);
    expect(h.published).toHaveLength(3);
  });

  it('stops calling a listener that unsubscribed', () => {
    const h = setup();
    let calls = 0;
    const unsubscribe = h.publisher.subscribe(() => calls++);
    h.publisher.invalidate(true);
    h.clock.advance(0);
    unsubscribe();
    h.publisher.invalidate(true);
    h.clock.advance(0);
    expect(calls).toBe(1);
  });
});
