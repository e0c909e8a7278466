import { useSyncExternalStore } from 'react';

/**
 * Date.now(), refreshed every 250 ms while `active`. One shared clock, so every countdown on the page shows
 * the same second.
 */
const TICK_MS = 250;
let now = Date.now();
let timer: ReturnType<typeof setInterval> | undefined;
const listeners = new Set<() => void>();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  if (!timer) {
    now = Date.now();
    timer = setInterval(() => {
      now = Date.now();
      for (const notify of listeners) notify();
    }, TICK_MS);
  }
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}

const noop = (): (() => void) => () => undefined;
const getNow = (): number => now;

export function useNow(active: boolean): number {
  return useSyncExternalStore(active ? subscribe : noop, getNow);
}
