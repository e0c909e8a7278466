/** Ping round trips on the frames' socket (see chart-data.ts PING_HELP), in a fixed-size ring. */
import { Signal } from '../events/signal.ts';

export interface PingSample {
  /** performance.now() when the pong arrived. */
  at: number;
  rttMs: number;
  /** The link the ping crossed both ways (its connection's, from hello: a spec, `none` without emulation). */
  link?: string;
}

export class PingStore {
  /** A round trip was added, or the store emptied. */
  readonly changed = new Signal<void>();
  private readonly ring: PingSample[] = [];
  private next = 0;

  constructor(private readonly capacity = 600) {}

  add(sample: PingSample): void {
    if (this.ring.length < this.capacity) this.ring.push(sample);
    else this.ring[this.next] = sample;
    this.next = (this.next + 1) % this.capacity;
    this.changed.emit();
  }

  latest(): PingSample | undefined {
    if (this.ring.length === 0) return undefined;
    return this.ring[(this.next - 1 + this.ring.length) % this.ring.length];
  }

  /** Oldest first. */
  all(): PingSample[] {
    if (this.ring.length < this.capacity) return [...this.ring];
    return [...this.ring.slice(this.next), ...this.ring.slice(0, this.next)];
  }

  since(at: number): PingSample[] {
    return this.all().filter((sample) => sample.at >= at);
  }

  clear(): void {
    this.ring.length = 0;
    this.next = 0;
    this.changed.emit();
  }
}
