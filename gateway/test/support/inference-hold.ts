/**
 * Holds a test gateway's frames before they reach an inference worker (the DispatchGate seam), so a test
 * decides when inference happens: frames stay "in flight" exactly as long as the test needs, whatever the
 * speed of the machine. Open by default (the gateway warms up through it).
 */
import type { DispatchGate } from '../../src/inference/inference-executor.ts';

export class InferenceHold implements DispatchGate {
  private held = false;
  private releaseAll: (() => void) | undefined;
  private released: Promise<void> = Promise.resolve();
  private arrived = 0;
  private readonly arrivalWaiters: { count: number; resolve: () => void }[] = [];

  /** Frames that reached the gate since it was made (held or not). */
  get reached(): number {
    return this.arrived;
  }

  /** From now on, frames wait at the gate until release(). */
  hold(): void {
    if (this.held) return;
    this.held = true;
    this.released = new Promise((resolve) => (this.releaseAll = resolve));
  }

  /** Lets every held frame, and every later one, through. */
  release(): void {
    this.held = false;
    this.releaseAll?.();
    this.releaseAll = undefined;
  }

  /**
   * Holds the gate, calls `send` (which sends one frame) and resolves once that frame waits at the gate: in
   * flight, for as long as the test wants.
   */
  async holdNext(send: () => void): Promise<void> {
    this.hold();
    const reached = this.arrived;
    send();
    await this.whenReached(reached + 1);
  }

  /** Resolves once `count` frames in all have reached the gate. */
  whenReached(count: number): Promise<void> {
    if (this.arrived >= count) return Promise.resolve();
    return new Promise((resolve) => this.arrivalWaiters.push({ count, resolve }));
  }

  wait(): Promise<void> {
    this.arrived++;
    for (const waiter of this.arrivalWaiters.filter((w) => this.arrived >= w.count)) {
      this.arrivalWaiters.splice(this.arrivalWaiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    return this.held ? this.released : Promise.resolve();
  }
}
