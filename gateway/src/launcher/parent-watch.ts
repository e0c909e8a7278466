/**
 * Notices that the launcher's parent (pnpm) is gone. pnpm passes SIGTERM and SIGINT on to the script it
 * runs, but has no handler for SIGHUP: a hang-up (or a SIGKILL) ends it on the spot and tells its child
 * nothing. The child is then re-parented, which its parent pid shows: asked five times a second (a
 * getppid() call, nothing more), so the gateway starts draining at most 0.2 s after pnpm went.
 */
export const PARENT_POLL_MS = 200;

/** Calls `onGone` once when this process's parent changes; returns a function that stops watching. */
export function watchParent(onGone: () => void, intervalMs = PARENT_POLL_MS): () => void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onGone();
  }, intervalMs);
  // Never the reason the launcher stays alive: its child is.
  timer.unref();
  return () => clearInterval(timer);
}
