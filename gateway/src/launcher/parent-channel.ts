/**
 * The gateway's side of the launcher (start.ts): started by it, the gateway has an IPC channel to it, which
 * closes when the launcher is gone however it went (SIGKILL included), so the run's starter vanishing is
 * noticed at once, with no polling. Under `node --watch` (`pnpm dev`) the channel is the watcher's, and
 * means the same.
 */

/** Calls `onGone` once, when the process that started this one over IPC is gone; nothing without a channel. */
export function whenParentGone(onGone: () => void): void {
  if (!process.channel) return;
  // The channel never keeps the gateway alive by itself: only its servers do.
  process.channel.unref();
  process.once('disconnect', onGone);
}
