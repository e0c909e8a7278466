/**
 * Whether a WebSocket's socket is read, when more than one thing may hold it back: the receive budget (the
 * gateway holds too many bytes of messages still arriving) and an emulated link (its uplink queue is full).
 * The socket reads again only once every holder has let go; one holder letting go never undoes another's hold.
 */
import type { WebSocket } from 'ws';
import type { PausableConnection } from '../scheduling/receive-budget.ts';

export class ReadingGate {
  private readonly holders = new Set<string>();
  private readonly facades = new Map<string, PausableConnection>();

  constructor(private readonly socket: Pick<WebSocket, 'pause' | 'resume'>) {}

  /** Held back by anyone: its peer's bytes, pongs included, wait in TCP (the heartbeat spares it). */
  get held(): boolean {
    return this.holders.size > 0;
  }

  /** The gate as one holder sees it: pause() and resume() on its own behalf. */
  as(holder: string): PausableConnection {
    let facade = this.facades.get(holder);
    if (!facade) {
      facade = { pause: () => this.hold(holder), resume: () => this.release(holder) };
      this.facades.set(holder, facade);
    }
    return facade;
  }

  hold(holder: string): void {
    if (this.holders.size === 0) this.socket.pause();
    this.holders.add(holder);
  }

  release(holder: string): void {
    if (!this.holders.delete(holder)) return;
    if (this.holders.size === 0) this.socket.resume();
  }
}
