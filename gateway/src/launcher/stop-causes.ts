/**
 * What asks the launcher to stop: the three signals a supervisor, a terminal or a script sends to the process
 * it started (`pnpm start`, which passes SIGTERM and SIGINT on), or pnpm itself gone (parent-watch.ts).
 */
import { watchParent } from './parent-watch.ts';

export const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];
export type StopCause = StopSignal | 'parent-gone';

/**
 * Calls `onStop` for every stop signal and, once, when the parent is gone; returns a function that removes
 * the handlers (the signals' default actions come back).
 */
export function onStopRequests(onStop: (cause: StopCause) => void): () => void {
  const handlers = STOP_SIGNALS.map((signal) => {
    const handler = () => onStop(signal);
    process.on(signal, handler);
    return [signal, handler] as const;
  });
  const stopWatching = watchParent(() => onStop('parent-gone'));
  return () => {
    stopWatching();
    for (const [signal, handler] of handlers) process.off(signal, handler);
  };
}
