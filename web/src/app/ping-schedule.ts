/**
 * Keeps the dashboard's own chart work out of the ping's round trip. The ping shares the socket and the
 * main thread with everything else; a snapshot rebuild (React + recharts render) that runs just as a ping
 * is due delays its send, and one that runs while the pong is on its way delays its receipt. So snapshot
 * rebuilds that are not urgent are moved out of a short window before each ping and out of the time its
 * pong is awaited (at most PONG_WAIT_MS, so a slow pong never freezes the page).
 */

export const PING_INTERVAL_MS = 1000;
/** No snapshot rebuild starts this close before a ping is due (a rebuild takes a few to tens of ms). */
export const PING_GUARD_MS = 80;
/** Longest a snapshot rebuild waits for a pong. */
export const PONG_WAIT_MS = 300;

export interface PingWindow {
  /** performance.now() the next ping is due at, if one is scheduled. */
  nextPingAt: number | undefined;
  /** A pong is awaited until then (0 when none is). */
  pongAwaitedUntil: number;
}

/** The earliest time at or after `at` a non-urgent snapshot rebuild may run without delaying a ping or pong. */
export function publishTime(at: number, window: PingWindow): number {
  let time = Math.max(at, window.pongAwaitedUntil);
  const due = window.nextPingAt;
  if (due !== undefined && time >= due - PING_GUARD_MS && time < due + PONG_WAIT_MS) time = due + PONG_WAIT_MS;
  return time;
}
