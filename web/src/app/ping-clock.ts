/**
 * Sends a `ping` on the frames' socket on a fixed 1 s grid (a setTimeout chain rather than setInterval),
 * so the quiet window before each ping is known in advance and the snapshot publisher can keep its
 * rebuilds out of it (ping-schedule.ts). The round trip itself is measured where the pong arrives.
 */
import { encodeMessage, type WireData } from '@sightline/shared/codec';
import type { Codec, PingMessage } from '@sightline/shared/protocol';
import { Signal } from '../events/signal.ts';
import type { Clock, TimerHandle } from '../time/clock.ts';
import { PING_INTERVAL_MS, PONG_WAIT_MS, type PingWindow } from './ping-schedule.ts';

/** The part of the socket a ping needs. */
export interface PingLink {
  readonly isOpen: boolean;
  send(data: WireData): boolean;
}

export interface PingClockOptions {
  clock: Clock;
  link: PingLink;
  /** Message ids, shared with frames so an `error` id names one message. */
  nextId: () => number;
  /** The codec pings go in: the one chosen for frames. */
  codec: () => Codec;
}

export class PingClock {
  /** The ping window moved (next ping scheduled, pong arrived): re-time work that must stay out of it. */
  readonly windowChanged = new Signal<void>();
  private timer: TimerHandle | undefined;
  private running = false;
  /** When the next ping is due, and until when its pong is awaited (see ping-schedule.ts). */
  private nextPingAt: number | undefined;
  private pongAwaitedUntil = 0;

  constructor(private readonly options: PingClockOptions) {}

  get window(): PingWindow {
    return { nextPingAt: this.nextPingAt, pongAwaitedUntil: this.pongAwaitedUntil };
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(this.options.clock.now() + PING_INTERVAL_MS);
  }

  stop(): void {
    this.running = false;
    this.options.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.nextPingAt = undefined;
  }

  /** The pong is in: the page need not keep quiet for it any longer. */
  pongArrived(): void {
    this.pongAwaitedUntil = 0;
    this.windowChanged.emit();
  }

  private schedule(dueAt: number): void {
    const { clock } = this.options;
    clock.clearTimeout(this.timer);
    this.nextPingAt = dueAt;
    this.timer = clock.setTimeout(this.beat, Math.max(0, dueAt - clock.now()));
    // A rebuild already scheduled into the new quiet window moves out of it.
    this.windowChanged.emit();
  }

  private readonly beat = (): void => {
    if (!this.running) return;
    const { clock, link } = this.options;
    const due = this.nextPingAt ?? clock.now();
    if (link.isOpen) {
      const ping: PingMessage = { type: 'ping', id: this.options.nextId(), ts: clock.now() };
      link.send(encodeMessage(ping, this.options.codec()));
      this.pongAwaitedUntil = clock.now() + PONG_WAIT_MS;
    }
    // Skip beats missed while the page was throttled instead of firing them in a burst.
    let next = due + PING_INTERVAL_MS;
    const now = clock.now();
    if (next <= now) next = now + PING_INTERVAL_MS;
    this.schedule(next);
  };
}
