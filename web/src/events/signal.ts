/**
 * Change notification between the dashboard's units: a unit publishes what changed (a socket greeted, a
 * frame settled, a model loaded), and whatever must react subscribes to it: the stream loop to what can
 * let a frame go, the snapshot publisher to what changes the view. So no composition root has to
 * remember to forward each event to each unit that cares.
 *
 * Written here rather than taken from a library: it runs for every frame, answer and pong, it is a dozen
 * lines, and its contract is exactly what the units rely on: listeners are called synchronously, in the
 * order they subscribed (a route settles a frame, the answer recorder records it, then the loop wakes).
 */

export type Listener<T> = (value: T) => void;

/** The subscribing side of a Signal: what a unit hands out. */
export interface Subscribable<T> {
  /** Calls `listener` on every emit from now on (once, if it is subscribed twice); returns the unsubscribe function. */
  subscribe(listener: Listener<T>): () => void;
}

export class Signal<T = void> implements Subscribable<T> {
  private readonly listeners = new Set<Listener<T>>();

  subscribe(listener: Listener<T>): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Calls the subscribers; one that subscribes during the emit is called from the next, one unsubscribed during it is not called. */
  emit(value: T): void {
    for (const listener of [...this.listeners]) if (this.listeners.has(listener)) listener(value);
  }
}
